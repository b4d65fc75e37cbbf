/**
 * Latency of a list of requests at the HTTP level (request sent → whole body
 * read), sequentially or with a fixed number in flight, over keep-alive
 * connections to 127.0.0.1. Bounded in count (the list) and in time.
 */
import { Pool } from "undici";

export interface LatencySummary {
  count: number;
  /** Requests that were not answered 200. */
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
  seconds: number;
  /** true when the time budget ended the pass early. */
  truncated: boolean;
}

/** Nearest-rank percentile of sorted values (milliseconds). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(samples: readonly number[], errors: number, seconds: number, truncated: boolean): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: samples.length,
    errors,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    seconds,
    truncated,
  };
}

export interface HttpPass {
  summary: LatencySummary;
  /** Per request, in list order (NaN when not run). */
  samples: number[];
  /** The list positions of the requests that failed. */
  failedAt: number[];
}

export async function timePaths(
  origin: string,
  paths: readonly string[],
  options: { concurrency: number; apiKey: string; budgetSeconds: number },
): Promise<HttpPass> {
  return timeRequests(origin, paths.map((path) => ({ method: "GET", path })), options);
}

export interface TimedRequest {
  method: "GET" | "POST";
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * Like timePaths, for any request; `failed` looks at an answer's status and
 * body after its time is taken (e.g. a JSON-RPC error answered 200).
 */
export async function timeRequests(
  origin: string,
  requests: readonly TimedRequest[],
  options: { concurrency: number; apiKey: string; budgetSeconds: number; failed?: (status: number, body: Buffer) => boolean },
): Promise<HttpPass> {
  const pool = new Pool(origin, { connections: options.concurrency, pipelining: 1 });
  const samples = new Array<number>(requests.length).fill(Number.NaN);
  const failed = options.failed ?? ((status: number) => status !== 200);
  const failedAt: number[] = [];
  let next = 0;
  let truncated = false;
  const started = performance.now();
  const deadline = started + options.budgetSeconds * 1000;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= requests.length) return;
      if (performance.now() > deadline) {
        truncated = true;
        return;
      }
      const r = requests[i]!;
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: r.method, path: r.path, headers: { "x-api-key": options.apiKey, ...r.headers }, ...(r.body !== undefined ? { body: r.body } : {}) });
        const body = await res.body.arrayBuffer();
        samples[i] = performance.now() - t0;
        if (failed(res.statusCode, Buffer.from(body))) failedAt.push(i);
      } catch {
        samples[i] = performance.now() - t0;
        failedAt.push(i);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    await pool.close();
  }
  const done = samples.filter((s) => !Number.isNaN(s));
  return { summary: summarize(done, failedAt.length, (performance.now() - started) / 1000, truncated), samples, failedAt };
}
