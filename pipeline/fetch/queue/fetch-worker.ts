/**
 * Works fetch jobs of the shared queue, `concurrency` at a time: each slot
 * leases a job, fetches the video (fetch-video.ts), writes the outcome to
 * `fetch_results` and then ends the job, so a worker killed at any instant
 * leaves either no result (the lease runs out, another worker fetches the
 * video) or a result whose job is finished by the next worker to lease it,
 * without fetching again.
 *
 * - fetched, or a permanent answer (private, removed, no captions): stored, job completed;
 * - blocked by YouTube, or a passing failure: the job goes back to the queue
 *   and is tried again after its backoff; on its last try the failure is
 *   stored as `failed` (the video stays wanted: the next run queues it again),
 *   never as permanent;
 * - anything else (a bug, PostgreSQL unreachable): the job goes back, and the
 *   slot waits a moment before it leases another.
 *
 * `stop()` takes no new job; in-flight jobs finish, or with `release` are
 * abandoned and given back at once. With `untilEmpty` the worker stops by
 * itself once no job is queued, waiting or leased anywhere.
 */
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import type { YouTubeClient } from "../../youtube/index.js";
import { realSleep } from "../../youtube/exits/exit-clock.js";
import { resultJobOf, saveFetchResult, type FetchResultOutcome, type FetchResultRow } from "./fetch-results.js";
import type { FetchJob, FetchQueue } from "./fetch-queue.js";
import { fetchVideo } from "./fetch-video.js";

export interface FetchWorkerOptions {
  queue: FetchQueue;
  client: YouTubeClient;
  concurrency: number;
  /** Stop once the queue holds no unfinished job. */
  untilEmpty?: boolean;
  /** How long an idle slot waits before it asks the queue again, in ms. Default 500. */
  pollMs?: number;
  log: (message: string) => void;
  /** Each job this worker ended, as it ends. */
  onOutcome?: (outcome: WorkerOutcome) => void;
}

export type WorkerOutcome =
  | { videoId: string; kind: "fetched" | "resumed" | "released" }
  | { videoId: string; kind: "permanent" | "failed" | "requeued"; code: string };

export interface WorkerCounts {
  /** Fetched and stored. */
  fetched: number;
  /** Permanent answers stored. */
  permanent: number;
  /** Blocked or failed on the last try: stored as failed, wanted again by the next run. */
  failed: number;
  /** Blocked or failed with tries left: back in the queue. */
  requeued: number;
  /** Found stored by a worker that stopped before ending the job: ended without fetching. */
  resumed: number;
  /** Given back unfinished by a stop. */
  released: number;
  /** Not YouTube's answer (PostgreSQL, a bug): back in the queue. */
  errors: number;
}

export interface FetchWorker {
  readonly counts: WorkerCounts;
  /** Resolves when every slot has stopped (after `stop()`, or an empty queue with `untilEmpty`). */
  readonly done: Promise<WorkerCounts>;
  /** Takes no new job; `release`: abandons in-flight fetches and gives their jobs back. Resolves with `done`. */
  stop(options?: { release?: boolean }): Promise<WorkerCounts>;
}

/** Pause of a slot after an error that is not YouTube's, in ms. */
const ERROR_PAUSE_MS = 2_000;

export function startFetchWorker(options: FetchWorkerOptions): FetchWorker {
  const { queue, log } = options;
  const name = `${hostname()}:${process.pid}`;
  const pollMs = options.pollMs ?? 500;
  const counts: WorkerCounts = { fetched: 0, permanent: 0, failed: 0, requeued: 0, resumed: 0, released: 0, errors: 0 };
  /** Aborted by stop(): idle slots stop waiting. */
  const stopping = new AbortController();
  /** Aborted by stop({ release }): in-flight fetches stop. */
  const releasing = new AbortController();
  // Every slot's fetch and idle wait listen on these, a few listeners each: past Node's default of 10 from a concurrency of 4 or so.
  setMaxListeners(Math.max(10, 4 * options.concurrency), stopping.signal, releasing.signal);

  const ended = (outcome: WorkerOutcome): void => {
    counts[outcome.kind === "resumed" ? "resumed" : outcome.kind]++;
    options.onOutcome?.(outcome);
  };

  const store = (job: FetchJob, outcome: FetchResultOutcome, fields: Pick<FetchResultRow, "record" | "code" | "message">): Promise<void> =>
    saveFetchResult(queue.pool, { videoId: job.videoId, jobId: job.id, outcome, worker: name, finishedAt: new Date(), ...fields });

  const work = async (job: FetchJob): Promise<void> => {
    // Stored by a worker that stopped before it ended the job: end it, do not fetch again.
    if ((await resultJobOf(queue.pool, job.videoId)) === job.id) {
      await queue.complete(job, { resumed: true });
      ended({ videoId: job.videoId, kind: "resumed" });
      return;
    }
    let result;
    try {
      result = await fetchVideo({ client: options.client, videoId: job.videoId, languages: job.languages, anyLanguage: job.anyLanguage, signal: releasing.signal });
    } catch (error) {
      if (!releasing.signal.aborted) throw error;
      await queue.fail(job, { released: true });
      ended({ videoId: job.videoId, kind: "released" });
      return;
    }
    if (result.kind === "fetched") {
      await store(job, "fetched", { record: result.record });
      await queue.complete(job, { outcome: "fetched" });
      ended({ videoId: job.videoId, kind: "fetched" });
      return;
    }
    const { code, message } = result.error;
    if (result.kind === "permanent") {
      await store(job, "permanent", { code, message });
      await queue.complete(job, { outcome: "permanent", code });
      ended({ videoId: job.videoId, kind: "permanent", code });
      return;
    }
    const last = job.retryCount >= job.retryLimit;
    // Stored before the job fails for good, so the run hears of it; never as permanent.
    if (last) await store(job, "failed", { code, message });
    await queue.fail(job, { outcome: result.kind, code, message });
    ended({ videoId: job.videoId, kind: last ? "failed" : "requeued", code });
  };

  const slot = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      let job: FetchJob | undefined;
      try {
        job = await queue.take();
        if (job === undefined) {
          if (options.untilEmpty && (await queue.unfinished()) === 0) return;
          await realSleep(pollMs, stopping.signal).catch(() => undefined);
          continue;
        }
        await work(job);
      } catch (error) {
        counts.errors++;
        log(`fetch job${job ? ` of ${job.videoId}` : ""}: ${error instanceof Error ? error.message : String(error)}`);
        // Given back for a retry; if that fails too, its lease runs out and it comes back anyway.
        if (job) await queue.fail(job, { error: error instanceof Error ? error.message : String(error) }).catch(() => undefined);
        await realSleep(ERROR_PAUSE_MS, stopping.signal).catch(() => undefined);
      }
    }
  };

  const done = Promise.all(Array.from({ length: options.concurrency }, () => slot())).then(() => counts);
  return {
    counts,
    done,
    stop(stopOptions = {}) {
      stopping.abort();
      if (stopOptions.release) releasing.abort(new Error("released by a stop"));
      return done;
    },
  };
}
