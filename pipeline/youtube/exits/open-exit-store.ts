/**
 * The exit store a process sends through, as the server and the pipeline both
 * open it: the host's file (`DATA_DIR/exits.db`) so that the live fetcher and
 * the pipeline of one host share one view, and in front of it the fleet's
 * (Redis, REDIS_URL) so that replicas share it too. Each falls back to the
 * one behind it when it cannot be used, and says so in one log line: a host
 * file that cannot be opened (a read-only DATA_DIR) leaves this process's
 * memory; Redis unreachable leaves the host's file until it answers again.
 */
import type { Redis } from "ioredis";
import type { ExitStateStore } from "./exit-state-store.js";
import { FallbackExitStore } from "./fallback-exit-store.js";
import { MemoryExitStore } from "./memory-exit-store.js";
import { RedisExitStore } from "./redis-exit-store.js";
import { SqliteExitStore } from "./sqlite-exit-store.js";

export interface ExitStoreLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface OpenExitStoreOptions {
  /** The host's store file (DATA_DIR/exits.db); undefined: none, this process's memory instead. */
  hostPath?: string;
  /** The fleet's store: a Redis connection and the key prefix (REDIS_KEY_PREFIX). */
  redis?: {
    redis: Redis;
    prefix: string;
    /** Whether the connection can take commands now. Default: its status is `ready`. */
    usable?: () => boolean;
    /** Told of each failed command. */
    failed?: (error: unknown) => void;
  };
  log: ExitStoreLog;
}

export interface OpenedExitStore {
  store: ExitStateStore;
  /** Where the state is kept: `fleet` (Redis, with the host's behind), `host`, or `process` (memory). */
  scope: "fleet" | "host" | "process";
  /** Closes the host's file (a Redis connection is its owner's to close). */
  close(): void;
}

export function openExitStore(options: OpenExitStoreOptions): OpenedExitStore {
  const { log } = options;
  let host: SqliteExitStore | undefined;
  if (options.hostPath !== undefined) {
    try {
      host = SqliteExitStore.open(options.hostPath);
    } catch (error) {
      log.warn(`exit state kept in this process's memory: ${options.hostPath} cannot be opened (${error instanceof Error ? error.message : String(error)}); the server and the pipeline of this host do not share it`);
    }
  }
  // The host's file failing later (a full disk, a lock held too long) costs the sharing, not the fetch.
  const near: ExitStateStore = host
    ? new FallbackExitStore({
        shared: host,
        near: new MemoryExitStore(),
        pauseMs: 30_000,
        onChange: (up, error) =>
          up
            ? log.info(`exit state shared through ${host!.path} again`)
            : log.warn(`exit state kept in this process's memory for now: ${host!.path} failed (${error instanceof Error ? error.message : String(error)})`),
      })
    : new MemoryExitStore();
  const close = (): void => host?.close();
  if (options.redis === undefined) return { store: near, scope: host ? "host" : "process", close };
  const { redis, prefix } = options.redis;
  const usable = options.redis.usable ?? (() => redis.status === "ready");
  const where = host ? "this host's exits.db" : "this process's memory";
  const store = new FallbackExitStore({
    shared: new RedisExitStore({ redis, prefix }),
    near,
    usable,
    ...(options.redis.failed ? { failed: options.redis.failed } : {}),
    onChange: (up, error) =>
      up
        ? log.info("exit state shared through redis again")
        : log.warn(`redis unreachable for the exit state: kept in ${where} until it is back${error === undefined ? "" : ` (${error instanceof Error ? error.message : String(error)})`}`),
  });
  return { store, scope: "fleet", close };
}
