/**
 * The server's view of the API keys in PostgreSQL (DATABASE_URL): every row
 * in memory, so a request verifies its key without a round trip, as with
 * keys.db. The copy reloads when `npm run keys` notifies a change (LISTEN)
 * and every `refreshMs` whatever happens (a notification lost while the
 * connection was down), so a revocation reaches every replica within
 * moments, and within `refreshMs` at worst once PostgreSQL answers.
 * PostgreSQL unreachable: the copy last loaded keeps serving for
 * `cacheMs` after PostgreSQL last answered (KEY_CACHE_SECONDS), which bounds
 * how long a revocation made meanwhile goes unseen; a key the copy does not
 * hold (perhaps made meanwhile), and every key after that, gets 503
 * `key_store_unavailable`, not 401. The connection is made again at the next
 * refresh, and the copy reloaded at once.
 *
 * Keys are created with `npm run keys`; the server only revokes (the demo
 * key's revocation when another set is served), in memory at once and in
 * PostgreSQL in the background.
 */
import pg from "pg";
import { HttpError } from "../problem/http-error.js";
import { errorFields, type Logger } from "../log.js";
import { keyMatchesHash, parseKeyId } from "./api-key.js";
import type { KeyRecord } from "./key-record.js";
import type { KeyStore } from "./key-store.js";
import { allPgKeys, ensurePgKeys, KEYS_CHANNEL, pgRowToRecord, revokePgKey, type PgKeyRow } from "./pg-keys.js";

export interface PgKeyStoreOptions {
  url: string;
  log: Logger;
  /** Reload at least this often, in ms. Default 2000. */
  refreshMs?: number;
  /** How long after PostgreSQL last answered the copy serves while it is unreachable, in ms. Default 300000. */
  cacheMs?: number;
  /** Told when PostgreSQL stops answering (false) and answers again (true), once per change. */
  onReachable?: (up: boolean) => void;
  /** Milliseconds since the epoch. Default Date.now. */
  now?: () => number;
}

const DEFAULT_CACHE_MS = 300_000;

/** Longest wait for a reload's answer (not on the request path: requests read the copy in memory). */
const QUERY_TIMEOUT_MS = 5_000;

/** 503 while PostgreSQL is unreachable and the key cannot be vouched for by the copy in memory. */
export function keyStoreUnavailable(): HttpError {
  return new HttpError(503, "key_store_unavailable", "The API key cannot be checked right now; try again shortly.", {
    headers: { "Retry-After": "5" },
  });
}

export async function openPgKeyStore(options: PgKeyStoreOptions): Promise<KeyStore> {
  const copy = new PgKeyCopy(options);
  await copy.open(options.refreshMs ?? 2_000);
  const cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
  const now = options.now ?? Date.now;
  return {
    create() {
      throw new Error("With DATABASE_URL, keys are created with npm run keys");
    },
    verify(key: string): KeyRecord | undefined {
      const keyId = parseKeyId(key);
      if (keyId === undefined) return undefined;
      // PostgreSQL unreachable: the copy vouches for what it holds, for a bounded time; for nothing else.
      if (!copy.reachable && now() - copy.loadedAt > cacheMs) throw keyStoreUnavailable();
      const row = copy.rows.get(keyId);
      if (row !== undefined && keyMatchesHash(key, row.hash)) return pgRowToRecord(row);
      if (!copy.reachable) throw keyStoreUnavailable();
      return undefined;
    },
    list: () => [...copy.rows.values()].map(pgRowToRecord),
    revoke(keyId, now = new Date()) {
      const row = copy.rows.get(keyId);
      if (row === undefined || row.revoked_at !== null) return false;
      copy.revoke(row, now);
      return true;
    },
    revokeByName(name, now = new Date()) {
      const named = [...copy.rows.values()].filter((row) => row.name === name && row.revoked_at === null);
      for (const row of named) copy.revoke(row, now);
      return named.length;
    },
    close: () => copy.close(),
  };
}

/**
 * The copy in memory of every key row, and the connection that keeps it
 * fresh: reloaded on each notification and every refresh, made again after
 * a failure, and reporting PostgreSQL's reachability once per change.
 */
class PgKeyCopy {
  rows = new Map<string, PgKeyRow>();
  /** When PostgreSQL last answered a reload (the copy is that fresh). */
  loadedAt = 0;
  reachable = true;
  #client: pg.Client | undefined;
  #closed = false;
  #reloading: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #options: PgKeyStoreOptions;
  readonly #now: () => number;

  constructor(options: PgKeyStoreOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Connects, makes the table if need be, loads, and reloads every `refreshMs` from then on. */
  async open(refreshMs: number): Promise<void> {
    this.#client = await this.#connect();
    await ensurePgKeys(this.#client);
    await this.#load();
    this.#timer = setInterval(() => void this.reload(), refreshMs);
    this.#timer.unref();
  }

  reload(): Promise<void> {
    this.#reloading ??= this.#load()
      .catch((error: unknown) => {
        if (this.reachable) this.#options.log.warn("api keys could not be reloaded from postgresql", errorFields(error));
        if (this.#client !== undefined) this.#client.end().catch(() => undefined);
        this.#client = undefined;
        this.#reached(false);
      })
      .finally(() => {
        this.#reloading = undefined;
      });
    return this.#reloading;
  }

  /** Revoked in memory at once, and in PostgreSQL in the background when it is reachable. */
  revoke(row: PgKeyRow, now: Date): void {
    const { log } = this.#options;
    this.rows.set(row.key_id, { ...row, revoked_at: now });
    const writer = this.#client;
    if (writer === undefined) {
      log.warn("key revoked in memory only: postgresql unreachable", { keyId: row.key_id });
      return;
    }
    revokePgKey(writer, row.key_id, now).catch((error: unknown) => log.warn("key revocation not written to postgresql", { keyId: row.key_id, ...errorFields(error) }));
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#client?.end().catch(() => undefined);
    this.#client = undefined;
  }

  async #connect(): Promise<pg.Client> {
    const { url, log } = this.#options;
    // A reload PostgreSQL does not answer within the query timeout fails as a refused one does: a stalled
    // server counts as unreachable, so the copy's KEY_CACHE_SECONDS bound applies to it too.
    const fresh = new pg.Client({ connectionString: url, application_name: "transcript-server", connectionTimeoutMillis: 2_000, query_timeout: QUERY_TIMEOUT_MS });
    fresh.on("error", (error) => {
      log.debug("postgresql key connection lost", errorFields(error));
      if (this.#client === fresh) this.#client = undefined;
      this.#reached(false);
      fresh.end().catch(() => undefined);
    });
    fresh.on("notification", () => void this.reload());
    await fresh.connect();
    await fresh.query(`LISTEN ${KEYS_CHANNEL}`);
    return fresh;
  }

  async #load(): Promise<void> {
    if (this.#closed) return;
    // A change made while disconnected sent no notification this connection could hear: load now.
    this.#client ??= await this.#connect();
    const next = new Map<string, PgKeyRow>();
    for (const row of await allPgKeys(this.#client)) next.set(row.key_id, row);
    this.rows = next;
    this.loadedAt = this.#now();
    this.#reached(true);
  }

  #reached(up: boolean): void {
    if (up === this.reachable) return;
    this.reachable = up;
    const { log, cacheMs = DEFAULT_CACHE_MS } = this.#options;
    if (up) log.info("postgresql reachable again: api keys reloaded");
    else log.warn("postgresql unreachable: api keys served from memory", { forSeconds: Math.max(0, Math.round((this.loadedAt + cacheMs - this.#now()) / 1000)) });
    this.#options.onReachable?.(up);
  }
}
