/**
 * The server's view of the API keys in PostgreSQL (DATABASE_URL): every row
 * in memory, so a request verifies its key without a round trip, as with
 * keys.db. The copy reloads when `npm run keys` notifies a change (LISTEN)
 * and every `refreshMs` whatever happens (a notification lost while the
 * connection was down), so a revocation reaches every replica within
 * moments, and within `refreshMs` at worst once PostgreSQL answers.
 * PostgreSQL unreachable: the copy last loaded keeps serving, and the
 * connection is made again at the next refresh.
 *
 * Keys are created with `npm run keys`; the server only revokes (the demo
 * key's revocation when another set is served), in memory at once and in
 * PostgreSQL in the background.
 */
import pg from "pg";
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
}

export async function openPgKeyStore(options: PgKeyStoreOptions): Promise<KeyStore> {
  const { url, log } = options;
  let rows = new Map<string, PgKeyRow>();
  let client: pg.Client | undefined;
  let closed = false;
  let reloading: Promise<void> | undefined;

  const connect = async (): Promise<pg.Client> => {
    const fresh = new pg.Client({ connectionString: url, application_name: "transcript-server", connectionTimeoutMillis: 2_000 });
    fresh.on("error", (error) => {
      log.warn("postgresql connection lost; keys served from memory until it is back", errorFields(error));
      if (client === fresh) client = undefined;
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
  };
  const reload = (): Promise<void> => {
    reloading ??= load()
      .catch((error: unknown) => log.warn("api keys could not be reloaded from postgresql", errorFields(error)))
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
      const row = rows.get(keyId);
      return row !== undefined && keyMatchesHash(key, row.hash) ? pgRowToRecord(row) : undefined;
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
