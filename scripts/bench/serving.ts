/**
 * Phase 5: stored-transcript serving with autocannon — GET /v1/transcript/:id
 * over a rotating set of stored ids, and 100-id bulk requests — against the
 * real server and, in the same run, a bare node:http process answering the
 * same paths with the same bytes. The two alternate (real, bare, real, bare)
 * so a burst of load from other users of the machine hits both alike.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { request } from "undici";
import { REPO_ROOT, tsxArgs } from "./paths.js";

export interface CannonFigures {
  requestsPerSecond: number;
  megabytesPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface ServingRow {
  name: string;
  server: CannonFigures;
  bare: CannonFigures;
  /** server req/s ÷ bare req/s. */
  ratio: number;
}

interface Target {
  method: "GET" | "POST";
  path: string;
  body?: string;
}

export async function measureServing(options: {
  origin: string;
  apiKey: string;
  videoIds: readonly string[];
  seconds: number;
  connections: number;
  responsesPath: string;
  log: (line: string) => void;
  /** Which of the two rows to measure (default both). */
  only?: "get";
}): Promise<ServingRow[]> {
  const gets: Target[] = options.videoIds.map((id) => ({ method: "GET", path: `/v1/transcript/${id}` }));
  const bulks: Target[] = [];
  for (let i = 0; i + 100 <= options.videoIds.length && bulks.length < 5; i += 100) {
    bulks.push({ method: "POST", path: "/v1/transcripts/bulk", body: JSON.stringify({ videoIds: options.videoIds.slice(i, i + 100), fetchMissing: false }) });
  }
  if (bulks.length === 0) {
    bulks.push({ method: "POST", path: "/v1/transcripts/bulk", body: JSON.stringify({ videoIds: options.videoIds.slice(0, 100), fetchMissing: false }) });
  }
  // Record the real server's bytes for the bare one.
  const recorded = { get: {} as Record<string, string>, post: {} as Record<string, string> };
  for (const target of [...gets, ...bulks]) {
    const res = await request(`${options.origin}${target.path}`, {
      method: target.method,
      headers: { "x-api-key": options.apiKey, "content-type": "application/json" },
      ...(target.body ? { body: target.body } : {}),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${target.method} ${target.path} answered ${res.statusCode} while recording responses`);
    if (target.method === "GET") recorded.get[target.path] = text;
    else recorded.post[target.body!] = text;
  }
  await writeFile(options.responsesPath, JSON.stringify(recorded));
  const bare = spawn(process.execPath, tsxArgs("scripts/bench/bare-server.ts", [options.responsesPath]), {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [line] = (await once(createInterface({ input: bare.stdout! }), "line")) as [string];
    const bareOrigin = `http://127.0.0.1:${line.trim()}`;
    const rows: ServingRow[] = [];
    const measured = [
      ["GET /v1/transcript/:id", gets],
      ["POST /v1/transcripts/bulk (100 ids)", bulks],
    ] as const;
    for (const [name, targets] of options.only === "get" ? measured.slice(0, 1) : measured) {
      const runs = { server: [] as CannonFigures[], bare: [] as CannonFigures[] };
      for (let round = 0; round < 2; round++) {
        runs.server.push(await cannon(options.origin, targets, options));
        runs.bare.push(await cannon(bareOrigin, targets, options));
      }
      const server = mean(runs.server);
      const bareFigures = mean(runs.bare);
      options.log(`serving ${name}: ${server.requestsPerSecond.toFixed(0)} req/s vs bare ${bareFigures.requestsPerSecond.toFixed(0)} req/s`);
      rows.push({ name, server, bare: bareFigures, ratio: server.requestsPerSecond / bareFigures.requestsPerSecond });
    }
    return rows;
  } finally {
    bare.kill("SIGTERM");
  }
}

export async function cannon(origin: string, targets: readonly Target[], options: { apiKey: string; seconds: number; connections: number }): Promise<CannonFigures> {
  let next = 0;
  const result = await autocannon({
    url: origin,
    connections: options.connections,
    duration: options.seconds,
    headers: { "x-api-key": options.apiKey, "content-type": "application/json" },
    requests: [
      {
        setupRequest: (req: Record<string, unknown>) => {
          const target = targets[next++ % targets.length]!;
          return { ...req, method: target.method, path: target.path, ...(target.body ? { body: target.body } : {}) };
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    megabytesPerSecond: result.throughput.average / 2 ** 20,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

function mean(runs: CannonFigures[]): CannonFigures {
  const avg = (pick: (f: CannonFigures) => number) => runs.reduce((sum, f) => sum + pick(f), 0) / runs.length;
  return {
    requestsPerSecond: avg((f) => f.requestsPerSecond),
    megabytesPerSecond: avg((f) => f.megabytesPerSecond),
    p99Ms: avg((f) => f.p99Ms),
    non2xx: runs.reduce((sum, f) => sum + f.non2xx, 0),
    errors: runs.reduce((sum, f) => sum + f.errors, 0),
  };
}
