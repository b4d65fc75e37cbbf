/**
 * `npm run pipeline -- worker [--until-empty] [--concurrency N]`: works the
 * fetch jobs of the shared queue (DATABASE_URL) with this host's YouTube
 * settings (YOUTUBE_ORIGIN, YOUTUBE_PROXY_URLS) until SIGTERM, or until the
 * queue is empty. A first SIGTERM or Ctrl-C takes no new job and lets the
 * fetches in flight finish; a second gives their jobs back to the queue at
 * once and exits. What it did is one line on stdout.
 */
import { parseArgs } from "node:util";
import type { Settings } from "../../../settings/settings.js";
import { createYouTubeClient, ExitPool, exitPolicyFromSettings, type ExitPoolSnapshot } from "../../youtube/index.js";
import { openPipelineExitState } from "../../command/exit-state.js";
import { EXIT } from "../../command/exit-codes.js";
import { runAsCommand } from "../../command/run-as-command.js";
import { FetchQueue } from "./fetch-queue.js";
import { startFetchWorker, type WorkerCounts } from "./fetch-worker.js";

export const WORKER_USAGE = `usage: npm run pipeline -- worker [--until-empty] [--concurrency N]

  --until-empty     stop once no fetch job is queued, waiting for a retry or leased by any worker
  --concurrency N   jobs worked at once (default FETCH_WORKER_CONCURRENCY, 8)

Works the fetch jobs that \`run\` queues in the PostgreSQL of DATABASE_URL (required), fetching
through this host's YOUTUBE_PROXY_URLS, and stores each outcome there for the run's build.
A first SIGTERM (or Ctrl-C) lets the fetches in flight finish; a second gives them back to the
queue at once. A worker killed outright loses nothing: its jobs go back after FETCH_LEASE_SECONDS.

exit codes: 0 stopped (SIGTERM, or the queue is empty with --until-empty), 1 failed, 2 usage`;

const log = (message: string): void => console.error(`[worker] ${message}`);

export async function workerCommand(argv: string[], config: Settings<"pipeline">): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { "until-empty": { type: "boolean", default: false }, concurrency: { type: "string" } } }));
  } catch (error) {
    console.error(`worker: ${(error as Error).message}\n${WORKER_USAGE.split("\n")[0]}`);
    return EXIT.usage;
  }
  const concurrency = values.concurrency === undefined ? config.fetchWorkerConcurrency : Number(values.concurrency);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > 256 || (values.concurrency !== undefined && !/^\d+$/.test(values.concurrency))) {
    console.error(`worker: Expected the "--concurrency" option to be a whole number from 1 to 256\n${WORKER_USAGE.split("\n")[0]}`);
    return EXIT.usage;
  }
  if (config.databaseUrl === undefined) {
    console.error(`worker: DATABASE_URL is not set: the fetch queue lives in PostgreSQL\n${WORKER_USAGE.split("\n")[0]}`);
    return EXIT.usage;
  }

  const untilEmpty = values["until-empty"];
  const databaseUrl = config.databaseUrl;
  return runAsCommand({
    stop: {
      first: (name) => log(`${name}: taking no new job; the fetches in flight finish (again to give them back now)`),
      again: (name) => log(`${name}: giving the jobs in flight back`),
    },
    exits: [],
    work: async ({ signal, again }) => {
      const queue = await FetchQueue.open({
        url: databaseUrl,
        leaseSeconds: config.fetchLeaseSeconds,
        retryLimit: config.fetchRetryLimit,
        retryDelaySeconds: config.fetchRetryDelaySeconds,
        connections: Math.min(concurrency, 16) + 2,
        log,
      });
      // This host's exits under the YOUTUBE_EXIT_* policy, their state shared with this host's server and run (DATA_DIR) and the fleet (REDIS_URL).
      const exitState = await openPipelineExitState({ ...config, log });
      const client = createYouTubeClient({
        origin: config.youtubeOrigin,
        exitPool: new ExitPool({ proxyUrls: config.youtubeProxyUrls, policy: exitPolicyFromSettings(config, config.youtubeOrigin), store: exitState.store }),
        timeoutMs: 15_000,
        maxBlockedRetries: config.youtubeMaxBlockedRetries,
      });
      const worker = startFetchWorker({ queue, client, concurrency, untilEmpty, log });
      // The first signal: no new job; a second: the jobs in flight go back to the queue now.
      whenAborted(signal, () => void worker.stop({ release: false }));
      whenAborted(again, () => void worker.stop({ release: true }));
      log(`working fetch jobs, ${concurrency} at a time${untilEmpty ? ", until the queue is empty" : ""}`);
      let counts: WorkerCounts;
      try {
        counts = await worker.done;
      } finally {
        await client.close();
        await queue.close();
        await exitState.close();
      }
      console.log(
        `worker stopped: ${counts.fetched} fetched, ${counts.permanent} permanent, ${counts.failed} failed (next run retries), ` +
          `${counts.requeued} requeued, ${counts.resumed} resumed, ${counts.released} released, ${counts.errors} errors; ${exitsLine(client.exits.snapshot())}`,
      );
      return EXIT.ok;
    },
  });
}

/** Calls `then` once `signal` is aborted (at once if it already is). */
function whenAborted(signal: AbortSignal, then: () => void): void {
  if (signal.aborted) then();
  else signal.addEventListener("abort", then, { once: true });
}

/** The exits in the worker's last line: requests, blocked and failed through them, and how many rest at the end. */
function exitsLine(snapshot: ExitPoolSnapshot): string {
  const total = (key: "sent" | "blocked" | "failed"): number => snapshot.exits.reduce((sum, e) => sum + e[key], 0);
  const cooling = snapshot.exits.filter((e) => e.condition === "cooling").length;
  const dead = snapshot.exits.filter((e) => e.condition === "dead").length;
  return `exits ${snapshot.exits.length}: ${total("sent")} requests, ${total("blocked")} blocked, ${total("failed")} failed, ${cooling} cooling, ${dead} out`;
}
