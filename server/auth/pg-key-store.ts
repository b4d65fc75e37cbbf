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

/** Longest wait for a reload's answer (not on the request path: requests read the copy in memory). */
const QUERY_TIMEOUT_MS = 5_000;

/** 503 while PostgreSQL is unreachable and the key cannot be vouched for by the copy in memory. */
export function keyStoreUnavailable(): HttpError {
  return new HttpError(503, "key_store_unavailable", "The API key cannot be checked right now; try again shortly.", {
    headers: { "Retry-After": "5" },
  });
}

export async function openPgKeyStore(options: PgKeyStoreOptions): Promise<KeyStore> {
  const { url, log } = options;
  const cacheMs = options.cacheMs ?? 300_000;
  const now = options.now ?? Date.now;
  let rows = new Map<string, PgKeyRow>();
  /** When PostgreSQL last answered a reload (its copy is that fresh). */
  let loadedAt = 0;
  let reachable = true;
  const reached = (up: boolean): void => {
    if (up === reachable) return;
    reachable = up;
    if (up) log.info("postgresql reachable again: api keys reloaded");
    else log.warn("postgresql unreachable: api keys served from memory", { forSeconds: Math.max(0, Math.round((loadedAt + cacheMs - now()) / 1000)) });
    options.onReachable?.(up);
  };
  let client: pg.Client | undefined;
  let closed = false;
  let reloading: Promise<void> | undefined;

  const connect = async (): Promise<pg.Client> => {
    // A reload PostgreSQL does not answer within the query timeout fails as a refused one does: a stalled
    // server counts as unreachable, so the copy's KEY_CACHE_SECONDS bound applies to it too.
    const fresh = new pg.Client({ connectionString: url, application_name: "transcript-server", connectionTimeoutMillis: 2_000, query_timeout: QUERY_TIMEOUT_MS });
    fresh.on("error", (error) => {
      log.debug("postgresql key connection lost", errorFields(error));
      if (client === fresh) client = undefined;
      reached(false);
      fresh.end().catch(() => undefined);
    });
    fresh.on("notification", () => void reload());
    await fresh.connect();
    await fresh.query(`LISTEN ${KEYS_CHANNEL}`);
    return fresh;
  };

  const load = async (): Promise<void> => {
    if (closed) return;
    if (client === undefined) {
      client = await connect();
      // A change made while disconnected sent no notification this connection could hear: load now.
    }
    const next = new Map<string, PgKeyRow>();
    for (const row of await allPgKeys(client)) next.set(row.key_id, row);
    rows = next;
    loadedAt = now();
    reached(true);
  };
  const reload = (): Promise<void> => {
    reloading ??= load()
      .catch((error: unknown) => {
        if (reachable) log.warn("api keys could not be reloaded from postgresql", errorFields(error));
        if (client !== undefined) client.end().catch(() => undefined);
        client = undefined;
        reached(false);
      })
      .finally(() => {
        reloading = undefined;
      });
    return reloading;
  };

  client = await connect();
  await ensurePgKeys(client);
  await load();
  const timer = setInterval(() => void reload(), options.refreshMs ?? 2_000);
  timer.unref();

  const revokeInMemory = (row: PgKeyRow, now: Date): void => {
    rows.set(row.key_id, { ...row, revoked_at: now });
    const writer = client;
    if (writer === undefined) {
      log.warn("key revoked in memory only: postgresql unreachable", { keyId: row.key_id });
      return;
    }
    revokePgKey(writer, row.key_id, now).catch((error: unknown) => log.warn("key revocation not written to postgresql", { keyId: row.key_id, ...errorFields(error) }));
  };

  return {
    create() {
      throw new Error("With DATABASE_URL, keys are created with npm run keys");
    },
    verify(key: string): KeyRecord | undefined {
      const keyId = parseKeyId(key);
      if (keyId === undefined) return undefined;
      // PostgreSQL unreachable: the copy vouches for what it holds, for a bounded time; for nothing else.
      if (!reachable && now() - loadedAt > cacheMs) throw keyStoreUnavailable();
      const row = rows.get(keyId);
      if (row !== undefined && keyMatchesHash(key, row.hash)) return pgRowToRecord(row);
      if (!reachable) throw keyStoreUnavailable();
      return undefined;
    },
    list: () => [...rows.values()].map(pgRowToRecord),
    revoke(keyId, now = new Date()) {
      const row = rows.get(keyId);
      if (row === undefined || row.revoked_at !== null) return false;
      revokeInMemory(row, now);
      return true;
    },
    revokeByName(name, now = new Date()) {
      const named = [...rows.values()].filter((row) => row.name === name && row.revoked_at === null);
      for (const row of named) revokeInMemory(row, now);
      return named.length;
    },
    close() {
      closed = true;
      clearInterval(timer);
      client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
