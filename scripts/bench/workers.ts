/**
 * Phase `workers`: search throughput at concurrency 8 with WORKERS=1 and
 * WORKERS=2 (node:cluster), one server after the other on the same set and
 * query set, each with its result cache off (run.ts), so every request
 * searches. Each freshly started server gets the query set once (the first
 * pass, reported on its own), then the query set over and over for
 * `throughputSeconds` on the same 8 connections: the throughput is the
 * requests answered ÷ that wall time. (Two passes of a few hundred queries
 * last about a second, and each ends in a drain with fewer requests in
 * flight, which weighs on two workers more than on one.)
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { timePaths, type LatencySummary } from "./latency.js";
import { treeRssOf, type ServerProcess } from "./server-process.js";

export interface WorkersRun {
  workers: number;
  first: LatencySummary;
  /** The timed run after the first pass. */
  repeat: LatencySummary;
  /** Requests answered in the timed run ÷ its wall time. */
  requestsPerSecond: number;
  firstRequestsPerSecond: number;
  /** The primary and its workers, after the passes. */
  rssMiB: number;
}

export interface WorkersComparison {
  concurrency: number;
  queries: number;
  runs: WorkersRun[];
  /** Length of each timed run. */
  throughputSeconds: number;
  /** Timed-run req/s with 2 workers ÷ with 1. */
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
  /** Length of the timed run after the first pass. */
  throughputSeconds: number;
  log: (line: string) => void;
}): Promise<WorkersComparison> {
  const runs: WorkersRun[] = [];
  for (const workers of [1, 2]) {
    const server = await options.start(workers);
    try {
      const first = await timePaths(server.origin, options.paths, { concurrency: options.concurrency, apiKey: options.apiKey, budgetSeconds: options.budgetSeconds });
      // Enough rounds of the query set that the time, not the list, ends the run.
      const rounds = Math.max(1, Math.ceil((options.throughputSeconds * 20_000) / Math.max(1, options.paths.length)));
      const looped = Array.from({ length: rounds }, () => options.paths).flat();
      const timed = await timePaths(server.origin, looped, { concurrency: options.concurrency, apiKey: options.apiKey, budgetSeconds: options.throughputSeconds });
      const run: WorkersRun = {
        workers,
        first: first.summary,
        repeat: timed.summary,
        requestsPerSecond: timed.summary.count / timed.summary.seconds,
        firstRequestsPerSecond: first.summary.count / first.summary.seconds,
        rssMiB: Math.round(treeRssOf(server.pid) / 2 ** 20),
      };
      options.log(`workers ${workers}: ${run.requestsPerSecond.toFixed(0)} req/s (timed run), first pass p99 ${first.summary.p99.toFixed(1)} ms`);
      runs.push(run);
    } finally {
      await server.stop();
    }
  }
  return { concurrency: options.concurrency, queries: options.paths.length, throughputSeconds: options.throughputSeconds, runs, ratio: runs[1]!.requestsPerSecond / runs[0]!.requestsPerSecond };
}
