/**
 * Phase `workers`: search throughput at concurrency 8 with WORKERS=1 and
 * WORKERS=2 (node:cluster), one server after the other on the same set and
 * query set, each with its result cache off (run.ts), so every request
 * searches. Each freshly started server gets the query set three times in a
 * row: the first pass is reported on its own, the throughput is that of
 * passes 2 and 3 (requests ÷ their wall time).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { summarize, timePaths, type LatencySummary } from "./latency.js";
import { treeRssOf, type ServerProcess } from "./server-process.js";

export interface WorkersRun {
  workers: number;
  first: LatencySummary;
  /** Passes 2 and 3 together. */
  repeat: LatencySummary;
  /** Requests answered in passes 2 and 3 ÷ their wall time. */
  requestsPerSecond: number;
  firstRequestsPerSecond: number;
  /** The primary and its workers, after the passes. */
  rssMiB: number;
}

export interface WorkersComparison {
  concurrency: number;
  queries: number;
  runs: WorkersRun[];
  /** Passes 2-3 req/s with 2 workers ÷ with 1. */
  ratio: number;
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
  log: (line: string) => void;
}): Promise<WorkersComparison> {
  const runs: WorkersRun[] = [];
  for (const workers of [1, 2]) {
    const server = await options.start(workers);
    try {
      const pass = () => timePaths(server.origin, options.paths, { concurrency: options.concurrency, apiKey: options.apiKey, budgetSeconds: options.budgetSeconds });
      const first = await pass();
      const second = await pass();
      const third = await pass();
      const samples = [...second.samples, ...third.samples].filter((s) => !Number.isNaN(s));
      const seconds = second.summary.seconds + third.summary.seconds;
      const repeat = summarize(samples, second.summary.errors + third.summary.errors, seconds, second.summary.truncated || third.summary.truncated);
      const run: WorkersRun = {
        workers,
        first: first.summary,
        repeat,
        requestsPerSecond: samples.length / seconds,
        firstRequestsPerSecond: first.summary.count / first.summary.seconds,
        rssMiB: Math.round(treeRssOf(server.pid) / 2 ** 20),
      };
      options.log(`workers ${workers}: ${run.requestsPerSecond.toFixed(0)} req/s (passes 2-3), first pass p99 ${first.summary.p99.toFixed(1)} ms`);
      runs.push(run);
    } finally {
      await server.stop();
    }
  }
  return { concurrency: options.concurrency, queries: options.paths.length, runs, ratio: runs[1]!.requestsPerSecond / runs[0]!.requestsPerSecond };
}
