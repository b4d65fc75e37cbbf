/**
 * `npm run pipeline -- worker [--until-empty] [--concurrency N]`: works the
 * fetch jobs of the shared queue (DATABASE_URL) with this host's YouTube
 * settings (YOUTUBE_ORIGIN, YOUTUBE_PROXY_URLS) until SIGTERM, or until the
 * queue is empty. A first SIGTERM or Ctrl-C takes no new job and lets the
 * fetches in flight finish; a second gives their jobs back to the queue at
 * once and exits. What it did is one line on stdout.
 */
import { parseArgs } from "node:util";
import type { Settings } from "../../settings/settings.js";
import { createYouTubeClient, ExitPool, exitPolicyFromSettings } from "../youtube/index.js";
import { EXIT } from "../command/exit-codes.js";
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

  const queue = await FetchQueue.open({
    url: config.databaseUrl,
    leaseSeconds: config.fetchLeaseSeconds,
    retryLimit: config.fetchRetryLimit,
    retryDelaySeconds: config.fetchRetryDelaySeconds,
    connections: Math.min(concurrency, 16) + 2,
    log,
  });
  // This host's exits under the YOUTUBE_EXIT_* policy, as a run's: pacing, in flight and cool-downs per exit.
  const client = createYouTubeClient({
    origin: config.youtubeOrigin,
    exitPool: new ExitPool({ proxyUrls: config.youtubeProxyUrls, policy: exitPolicyFromSettings(config, config.youtubeOrigin) }),
    timeoutMs: 15_000,
    maxBlockedRetries: config.youtubeMaxBlockedRetries,
  });
  const worker = startFetchWorker({ queue, client, concurrency, untilEmpty: values["until-empty"], log });
  let signals = 0;
  const onSignal = (name: string): void => {
    signals++;
    log(signals === 1 ? `${name}: taking no new job; the fetches in flight finish (again to give them back now)` : `${name}: giving the jobs in flight back`);
    void worker.stop({ release: signals > 1 });
  };
  const onTerm = (): void => onSignal("SIGTERM");
  const onInt = (): void => onSignal("SIGINT");
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  log(`working fetch jobs, ${concurrency} at a time${values["until-empty"] ? ", until the queue is empty" : ""}`);
  let counts: WorkerCounts;
  try {
    counts = await worker.done;
  } finally {
    process.off("SIGTERM", onTerm);
    process.off("SIGINT", onInt);
    await client.close();
    await queue.close();
  }
  console.log(
    `worker stopped: ${counts.fetched} fetched, ${counts.permanent} permanent, ${counts.failed} failed (next run retries), ` +
      `${counts.requeued} requeued, ${counts.resumed} resumed, ${counts.released} released, ${counts.errors} errors`,
  );
  return EXIT.ok;
}
