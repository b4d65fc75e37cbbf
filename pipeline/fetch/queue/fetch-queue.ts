/**
 * The shared queue of fetch jobs, on pg-boss in the PostgreSQL of
 * DATABASE_URL (schema `fetch_queue`): one job per video to fetch, taken by
 * whichever worker asks first (`FOR UPDATE SKIP LOCKED`), held for a lease
 * (the job's `expire_in`) and put back for another worker when that runs
 * out, retried with exponential backoff and jitter when it fails for a
 * passing reason. Results go beside it, in `fetch_results`
 * (fetch-results.ts), through the same connection pool.
 *
 * pg-boss is asked to do only what it does durably: hold jobs, lease them,
 * expire and retry them. Each job's id comes from job-key.ts, so a video is
 * queued once: the queue's unique key on (queue, id) refuses a second job.
 */
import { hostname } from "node:os";
import PgBoss from "pg-boss";
import pg from "pg";
import { realSleep } from "../../youtube/exits/exit-clock.js";
import { FETCH_RESULTS_DDL } from "./fetch-results.js";
import { fetchJobId } from "./job-key.js";

/** pg-boss's schema: its own, so another application's pg-boss (of another version) in the same database is left alone. */
export const FETCH_QUEUE_SCHEMA = "fetch_queue";
/** The queue's name. */
export const FETCH_QUEUE_NAME = "fetch-transcript";

/** What a job carries: the video, and how the run that queued it wants its transcript. */
export interface FetchJobData {
  videoId: string;
  languages: string[];
  anyLanguage: boolean;
}

export interface FetchJob extends FetchJobData {
  id: string;
  /** Tries before this one (a lease that ran out counts too). */
  retryCount: number;
  retryLimit: number;
}

export interface FetchQueueOptions {
  url: string;
  /** How long a worker holds a job it took before the queue gives it to another (set on each job enqueued), in s. */
  leaseSeconds: number;
  /** Tries after the first, for a job failed for a passing reason (set on each job enqueued). */
  retryLimit: number;
  /** First wait before such a retry, doubled each time, in s (set on each job enqueued). */
  retryDelaySeconds: number;
  /** Connections to PostgreSQL, for the queue and the results together. */
  connections: number;
  log: (message: string) => void;
}

/** Jobs inserted per statement. */
const INSERT_BATCH = 1_000;

export class FetchQueue {
  readonly pool: pg.Pool;
  readonly #boss: PgBoss;
  readonly #options: FetchQueueOptions;

  private constructor(pool: pg.Pool, boss: PgBoss, options: FetchQueueOptions) {
    this.pool = pool;
    this.#boss = boss;
    this.#options = options;
  }

  /** Connects, makes the queue's schema and the results table when missing (whoever comes first), and starts expiring leases. */
  static async open(options: FetchQueueOptions): Promise<FetchQueue> {
    const pool = new pg.Pool({
      connectionString: options.url,
      application_name: `transcript-pipeline fetch queue ${hostname()} pid ${process.pid}`,
      connectionTimeoutMillis: 10_000,
      max: options.connections,
    });
    // A connection lost while idle is replaced on the next query; the query that needs it says what failed.
    pool.on("error", () => undefined);
    const boss = new PgBoss({
      db: { executeSql: (text, values) => pool.query(text, values) },
      schema: FETCH_QUEUE_SCHEMA,
      // Leases are checked this often (by one of the processes sharing the queue): a fraction of the lease, within 1 s to 1 min.
      maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(options.leaseSeconds / 2))),
      schedule: false,
    });
    boss.on("error", (error) => options.log(`fetch queue: ${error.message}`));
    try {
      await boss.start();
      await boss.createQueue(FETCH_QUEUE_NAME, { name: FETCH_QUEUE_NAME, policy: "standard" });
      await pool.query(FETCH_RESULTS_DDL);
    } catch (error) {
      await boss.stop({ graceful: false, close: false }).catch(() => undefined);
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new FetchQueue(pool, boss, options);
  }

  /**
   * Queues one job per video; a video whose job for the same attempt is
   * queued, leased or finished already is left as it is. Resolves once
   * the jobs are committed.
   */
  async enqueue(videos: readonly { videoId: string; attempts: number }[], wanted: { languages: string[]; anyLanguage: boolean }): Promise<void> {
    for (let start = 0; start < videos.length; start += INSERT_BATCH) {
      const jobs = videos.slice(start, start + INSERT_BATCH).map((video) => ({
        id: fetchJobId(video),
        name: FETCH_QUEUE_NAME,
        data: { videoId: video.videoId, languages: wanted.languages, anyLanguage: wanted.anyLanguage } satisfies FetchJobData,
        singletonKey: video.videoId,
        expireInSeconds: this.#options.leaseSeconds,
        retryLimit: this.#options.retryLimit,
        retryDelay: this.#options.retryDelaySeconds,
        retryBackoff: true,
      }));
      await this.#boss.insert(jobs);
    }
  }

  /** Leases the next job due, if any. */
  async take(): Promise<FetchJob | undefined> {
    const [job] = await this.#boss.fetch<FetchJobData>(FETCH_QUEUE_NAME, { batchSize: 1, includeMetadata: true });
    if (job === undefined) return undefined;
    return { ...job.data, id: job.id, retryCount: job.retryCount, retryLimit: job.retryLimit };
  }

  /** Ends a job: its outcome is stored (fetch-results.ts). */
  async complete(job: FetchJob, output: Record<string, unknown>): Promise<void> {
    await this.#boss.complete(FETCH_QUEUE_NAME, job.id, output);
  }

  /** Gives a job back: tried again after the backoff, or failed for good once out of retries. */
  async fail(job: FetchJob, output: Record<string, unknown>): Promise<void> {
    await this.#boss.fail(FETCH_QUEUE_NAME, job.id, output);
  }

  /** Jobs not finished: queued, waiting for a retry, or leased. */
  async unfinished(): Promise<number> {
    return (await this.#boss.getQueueSize(FETCH_QUEUE_NAME, { before: "completed" })) ?? 0;
  }

  /** Resolves once no job is queued, waiting for a retry or leased; `onPoll` hears the count each time it is read. Rejects when `signal` aborts. */
  async waitUntilDrained(options: { signal?: AbortSignal; pollMs?: number; onPoll?: (unfinished: number) => void } = {}): Promise<void> {
    for (;;) {
      const left = await this.unfinished();
      options.onPoll?.(left);
      if (left === 0) return;
      await realSleep(options.pollMs ?? 1_000, options.signal);
    }
  }

  async close(): Promise<void> {
    await this.#boss.stop({ graceful: false, close: false, wait: true }).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
