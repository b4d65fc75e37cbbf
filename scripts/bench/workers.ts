/**
 * Phase `workers`: search throughput at concurrency 8 with WORKERS=1 and
 * WORKERS=2 (node:cluster) on the same set and query set, each server
 * started fresh with its result cache off (run.ts), so every request
 * searches. Each server gets the query set once (the first pass, timed
 * request by request), then the query set over and over on 8 connections
 * from wrk where it is installed, else autocannon: first for
 * `warmupSeconds`, reported apart, then for `throughputSeconds`, the timed
 * run: the throughput is the requests answered ÷ that time. (The load
 * generator runs on the same cores as the servers, and what it takes of them
 * weighs on two workers, which use both cores, and not on one: wrk.ts.)
 *
 * The warm-up is apart because the first seconds of load after a start are
 * not what a server sustains: the engine is still optimizing the code that
 * answers a request (the HTTP layer's and the search's) for what the
 * requests bring, on threads of its own, and with two workers
 * those threads take the cores from the workers' main threads (one worker
 * leaves them the other core). So the timed run measures the sustained
 * throughput, and the warm-up's own throughput shows the start.
 *
 * A shared machine's speed drifts by tens of percent from one minute to the
 * next, so the two settings are measured in `rounds` rounds, alternated
 * (1, 2, then 2, 1, …), and the figures reported are the medians over the
 * rounds: the ratio of each round's two throughputs, and the first-pass
 * p99 with two workers. During the first pass and the timed run, where the
 * CPU went is read from /proc (threads.ts): how much of a core each worker's
 * main thread had, and how long it waited for one.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { timePaths, type LatencySummary } from "./latency.js";
import { treePssOf, treeRssOf, type ServerProcess } from "./server-process.js";
import { cannon, type CannonFigures } from "./serving.js";
import { measureCpu, type CpuShares } from "./threads.js";
import { runWrk } from "./wrk.js";

/** The load generator of the timed runs. */
export type WorkersClient = "wrk" | "autocannon";

export interface WorkersRun {
  workers: number;
  /** 1-based round. */
  round: number;
  first: LatencySummary;
  /** The warm-up run between the first pass and the timed run (absent with `warmupSeconds` 0, and in results written before it ran). */
  warmup?: { requestsPerSecond: number; errors: number; cpu?: CpuShares };
  /** The timed run after the first pass and the warm-up (`client`). */
  timed: CannonFigures;
  /** Requests answered per second in the timed run (autocannon: the mean of its per-second counts; wrk: its count ÷ its duration). */
  requestsPerSecond: number;
  firstRequestsPerSecond: number;
  /** The primary and its workers, after the passes. */
  rssMiB: number;
  /** Their proportional set size (server-process.ts treePssOf), after the passes; absent in results written before it was recorded. */
  pssMiB?: number;
  /** Where the CPU went during the first pass and during the timed run (threads.ts; absent where /proc does not tell, and in results written before they were recorded). */
  firstCpu?: CpuShares;
  cpu?: CpuShares;
}

export interface WorkersComparison {
  concurrency: number;
  queries: number;
  rounds: number;
  runs: WorkersRun[];
  /** Length of each timed run. */
  throughputSeconds: number;
  /** Length of each warm-up run before it (absent in results written before it ran: none). */
  warmupSeconds?: number;
  /** The timed runs' load generator (absent in results written before it was recorded: autocannon). */
  client?: WorkersClient;
  /** Per round: timed-run req/s with 2 workers ÷ with 1. */
  ratios: number[];
  /** Median of `ratios`. */
  ratio: number;
  /** Median over the rounds of the first-pass p99 with 2 workers (ms). */
  firstP99: number;
}

/** The median of numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The order of the two settings in each round: 1 then 2, 2 then 1, …, so a drift of the machine weighs on both alike. */
export function roundOrder(round: number): [number, number] {
  return round % 2 === 1 ? [1, 2] : [2, 1];
}

/** Waits for the server log's `listening` line that counts `workers` workers (the primary logs it once every worker serves). */
export async function waitForWorkers(logPath: string, offset: number, workers: number, timeoutMs = 600_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (existsSync(logPath) && statSync(logPath).size > offset) {
      const text = readFileSync(logPath, "utf8").slice(offset);
      for (const line of text.split("\n")) {
        if (!line.includes('"listening"')) continue;
        try {
          const entry = JSON.parse(line) as { msg?: string; workers?: number };
          if (entry.msg === "listening" && entry.workers === workers) return;
        } catch {
          // not a log line of ours
        }
      }
    }
    await sleep(100);
  }
  throw new Error(`the server did not log that its ${workers} workers listen within ${timeoutMs} ms; see ${logPath}`);
}

export async function compareWorkers(options: {
  /** Starts a server with these WORKERS and waits until every worker serves. */
  start: (workers: number) => Promise<ServerProcess>;
  paths: readonly string[];
  apiKey: string;
  concurrency: number;
  budgetSeconds: number;
  /** Length of the timed run after the first pass and the warm-up. */
  throughputSeconds: number;
  /** Length of the warm-up run between the first pass and the timed run (default 0: none). */
  warmupSeconds?: number;
  /** Rounds of the two settings, alternated (default 3). */
  rounds?: number;
  /** The timed runs' load generator (default autocannon). */
  client?: WorkersClient;
  /** Cores of the machine (for the machine's busy share). */
  cores: number;
  log: (line: string) => void;
}): Promise<WorkersComparison> {
  const rounds = options.rounds ?? 3;
  const client = options.client ?? "autocannon";
  const warmupSeconds = options.warmupSeconds ?? 0;
  const timedRun = (origin: string, seconds = options.throughputSeconds) => {
    const settings = { apiKey: options.apiKey, seconds, connections: options.concurrency };
    return client === "wrk" ? runWrk(origin, options.paths, settings) : cannon(origin, options.paths.map((path) => ({ method: "GET", path })), settings);
  };
  const runs: WorkersRun[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const workers of roundOrder(round)) {
      const server = await options.start(workers);
      try {
        const { result: first, cpu: firstCpu } = await measureCpu(server.pid, workers, options.cores, () =>
          timePaths(server.origin, options.paths, { concurrency: options.concurrency, apiKey: options.apiKey, budgetSeconds: options.budgetSeconds }),
        );
        const warmed = warmupSeconds > 0 ? await measureCpu(server.pid, workers, options.cores, () => timedRun(server.origin, warmupSeconds)) : undefined;
        const { result: timed, cpu } = await measureCpu(server.pid, workers, options.cores, () => timedRun(server.origin));
        const run: WorkersRun = {
          workers,
          round,
          first: first.summary,
          ...(warmed ? { warmup: { requestsPerSecond: warmed.result.requestsPerSecond, errors: warmed.result.errors + warmed.result.non2xx, ...(warmed.cpu ? { cpu: warmed.cpu } : {}) } } : {}),
          timed,
          requestsPerSecond: timed.requestsPerSecond,
          firstRequestsPerSecond: first.summary.count / first.summary.seconds,
          rssMiB: Math.round(treeRssOf(server.pid) / 2 ** 20),
          pssMiB: Math.round(treePssOf(server.pid) / 2 ** 20),
          ...(firstCpu ? { firstCpu } : {}),
          ...(cpu ? { cpu } : {}),
        };
        options.log(`workers ${workers}, round ${round}: ${run.requestsPerSecond.toFixed(0)} req/s (timed run), first pass p99 ${first.summary.p99.toFixed(1)} ms`);
        runs.push(run);
      } finally {
        await server.stop();
      }
    }
  }
  const of = (round: number, workers: number) => runs.find((run) => run.round === round && run.workers === workers)!;
  const ratios = Array.from({ length: rounds }, (_, i) => of(i + 1, 2).requestsPerSecond / of(i + 1, 1).requestsPerSecond);
  return {
    concurrency: options.concurrency,
    queries: options.paths.length,
    rounds,
    throughputSeconds: options.throughputSeconds,
    ...(warmupSeconds > 0 ? { warmupSeconds } : {}),
    client,
    runs,
    ratios,
    ratio: median(ratios),
    firstP99: median(runs.filter((run) => run.workers === 2).map((run) => run.first.p99)),
  };
}
