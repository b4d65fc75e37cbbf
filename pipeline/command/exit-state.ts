/**
 * The exit state a pipeline command (`run`, `worker`) sends through: the
 * host's `DATA_DIR/exits.db`, shared with the server of this host, and with
 * REDIS_URL the fleet's in Redis in front of it. A DATA_DIR that does not
 * exist is not made for it (a fetch worker needs none): the state is then
 * this process's, or the fleet's alone.
 */
import { existsSync } from "node:fs";
import type { Redis } from "ioredis";
import { dataDirLayout } from "../artifact/layout/index.js";
import { connectExitRedis } from "../youtube/exits/exit-redis.js";
import { openExitStore, type OpenedExitStore } from "../youtube/exits/open-exit-store.js";

export interface PipelineExitStateOptions {
  dataDir: string;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  redisDeadlineMs: number;
  log: (message: string) => void;
}

export interface PipelineExitState extends Omit<OpenedExitStore, "close"> {
  close(): Promise<void>;
}

export async function openPipelineExitState(options: PipelineExitStateOptions): Promise<PipelineExitState> {
  const log = { info: options.log, warn: options.log };
  const hostPath = existsSync(options.dataDir) ? dataDirLayout(options.dataDir).exits : undefined;
  let redis: Redis | undefined;
  if (options.redisUrl !== undefined) redis = await connectExitRedis({ url: options.redisUrl, deadlineMs: options.redisDeadlineMs });
  const opened = openExitStore({
    ...(hostPath === undefined ? {} : { hostPath }),
    ...(redis === undefined ? {} : { redis: { redis, prefix: options.redisKeyPrefix } }),
    log,
  });
  return {
    store: opened.store,
    scope: opened.scope,
    async close() {
      opened.close();
      redis?.disconnect();
    },
  };
}
