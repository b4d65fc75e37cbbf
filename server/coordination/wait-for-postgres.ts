/**
 * At start with DATABASE_URL: PostgreSQL is asked until it answers, so a
 * replica started before it (a machine booting, a database failing over)
 * comes up by itself once it does, rather than exit for a supervisor to
 * restart in a loop. Nothing is served meanwhile (the port, bound at start,
 * resets each connection), so a load balancer counts the replica as down; a
 * stop signal ends the wait.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { errorFields, type Logger } from "../log.js";

export interface WaitForPostgresOptions {
  /** True once a stop was asked for: the wait ends with false. */
  stopped: () => boolean;
  /** First pause between tries, in ms, doubling up to `maxDelayMs`. Default 500. */
  firstDelayMs?: number;
  /** Default 5000. */
  maxDelayMs?: number;
}

/** Resolves true once PostgreSQL answers a query, false when stopped first. */
export async function waitForPostgres(url: string, log: Logger, options: WaitForPostgresOptions): Promise<boolean> {
  let delay = options.firstDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 5_000;
  let waitingSince: number | undefined;
  for (;;) {
    if (options.stopped()) return false;
    const client = new pg.Client({ connectionString: url, application_name: "transcript-server start", connectionTimeoutMillis: 2_000 });
    // A connection that fails after connecting emits here; the query below fails with it.
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      if (waitingSince !== undefined) log.info("postgresql reachable: starting", { waitedSeconds: Math.round((Date.now() - waitingSince) / 1000) });
      return true;
    } catch (error) {
      if (waitingSince === undefined) {
        waitingSince = Date.now();
        log.warn("postgresql not reachable at start; waiting for it before serving", { database: where(url), ...errorFields(error) });
      }
    } finally {
      await client.end().catch(() => undefined);
    }
    // In short steps, so a stop signal during a long pause is seen at once.
    for (let waited = 0; waited < delay && !options.stopped(); waited += 100) await sleep(100);
    delay = Math.min(maxDelay, delay * 2);
  }
}

/** host:port/database of a connection URL, without the credentials. */
function where(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "(DATABASE_URL)";
  }
}
