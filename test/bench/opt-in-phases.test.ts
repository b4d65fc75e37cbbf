/**
 * The bench's opt-in phases (mcp, workers, redis, dataset, pg-peer): their
 * options, their rows and verdicts in the report, and each phase's runner
 * against the real server, pipeline, Redis and PostgreSQL on a small
 * published set.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { newBuildDir, publishBuild } from "../../pipeline/publish/publish.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { measureDataset, timePipelineCommand } from "../../scripts/bench/dataset.js";
import { compareMcpWithRest } from "../../scripts/bench/mcp-vs-rest.js";
import { BenchUsageError, DEFAULT_PHASES, parseBenchArgs } from "../../scripts/bench/options.js";
import { comparePostgres } from "../../scripts/bench/pg-peer.js";
import type { BenchQuery } from "../../scripts/bench/query-set.js";
import { markdownSection, reportParts, reportText, resultRows, sectionHeading } from "../../scripts/bench/report.js";
import type { BenchResults } from "../../scripts/bench/run.js";
import { startServer, type ServerProcess } from "../../scripts/bench/server-process.js";
import { measureServing } from "../../scripts/bench/serving.js";
import { compareWorkers, median, roundOrder, waitForWorkers } from "../../scripts/bench/workers.js";
import { wrkAvailable } from "../../scripts/bench/wrk.js";
import { TEST_SERVER_ENV } from "../reliability/helpers/child.js";
import { CHANNEL_B, sampleRecords, videoId } from "../helpers/records.js";
import { POSTGRES_URL, postgresAvailable, REDIS_URL, redisAvailable } from "../helpers/services.js";

const OPT_IN = ["mcp", "workers", "redis", "dataset", "pg-peer"] as const;
const summary = (p50: number, p99: number, errors = 0) => ({ count: 10, errors, p50, p95: p99, p99, max: p99, mean: p50, seconds: 1, truncated: false });
const base: BenchResults = { size: 2000, seed: 1, command: "test", machine: { cpu: "X", cores: 2, ramGiB: 8, node: "v20", commit: "abc" }, startedAt: "2026-01-01T00:00:00Z", load: {} };
const verdict = (r: BenchResults, metric: string) => resultRows(r).find((row) => row.metric.startsWith(metric));

describe("the opt-in phases' options", () => {
  it("are not run by default, and run when listed", () => {
    for (const phase of OPT_IN) expect(DEFAULT_PHASES).not.toContain(phase);
    expect(parseBenchArgs(["--phases", OPT_IN.join(",")], 2).phases).toEqual(["mcp", "workers", "redis", "dataset", "pg-peer"]);
  });

  it("take Redis and PostgreSQL URLs and a cap on PostgreSQL's transcripts (all by default)", () => {
    expect(parseBenchArgs([], 2)).toMatchObject({ redisUrl: "redis://127.0.0.1:6379", pgUrl: "postgres://postgres@127.0.0.1:5432/postgres", pgMaxDocs: undefined });
    expect(parseBenchArgs(["--pg-max-docs", "all"], 2).pgMaxDocs).toBeUndefined();
    expect(parseBenchArgs(["--pg-max-docs", "50000", "--redis-url", "redis://10.0.0.2:6380"], 2)).toMatchObject({ pgMaxDocs: 50_000, redisUrl: "redis://10.0.0.2:6380" });
    expect(() => parseBenchArgs(["--redis-url", "http://x"], 2)).toThrow(new BenchUsageError('Expected the "--redis-url" option to be a redis:// or rediss:// URL'));
    expect(() => parseBenchArgs(["--pg-url", "nope"], 2)).toThrow(new BenchUsageError('Expected the "--pg-url" option to be a postgres:// or postgresql:// URL'));
    expect(() => parseBenchArgs(["--pg-max-docs", "0"], 2)).toThrow(new BenchUsageError('Expected the "--pg-max-docs" option to be an integer of at least 1'));
  });
});

describe("the opt-in phases' rows", () => {
  it("MCP passes within 15% of REST at p50 with every request searching, misses beyond it or with errors; the warm-cache cost is shown, not judged", () => {
    const pair = (restP50: number, mcpP50: number, errors = 0) => ({ queries: 10, rounds: 2, rest: summary(restP50, 9), mcp: summary(mcpP50, 9, errors), p50Ratio: mcpP50 / restP50 });
    const mcp = (restP50: number, mcpP50: number, errors = 0) => ({ ...base, mcp: { client: "plain", searched: pair(restP50, mcpP50, errors), cached: pair(0.5, 0.9) } });
    const searched = "MCP p50 ÷ REST p50, every request searching";
    expect(verdict(mcp(2, 2.2), searched)).toMatchObject({ target: "≤ 1.15", verdict: "PASS", value: expect.stringMatching(/^1\.10× /) });
    expect(verdict(mcp(2, 2.4), searched)?.verdict).toBe("MISS");
    expect(verdict(mcp(2, 2.1, 1), searched)?.verdict).toBe("MISS");
    expect(verdict(mcp(2, 2.2), "MCP p50 − REST p50 with the result cache warm: the protocol's own cost")).toMatchObject({ target: "", verdict: "", value: "0.40 ms (1.80×)" });
  });

  it("two workers pass at a median 1.7 times one worker's throughput over the rounds, and at a median first-pass p99 of 30 ms", () => {
    const timed = { requestsPerSecond: 0, megabytesPerSecond: 1, p99Ms: 9, non2xx: 0, errors: 0 };
    const run = (round: number, workers: number, rps: number, firstP99: number) => ({ workers, round, first: summary(2, firstP99), timed: { ...timed, requestsPerSecond: rps }, requestsPerSecond: rps, firstRequestsPerSecond: rps / 2, rssMiB: 100 });
    // Three rounds: two workers at these throughputs and first-pass p99s, one worker at 1000 req/s throughout.
    const r = (rps2: number[], p99s: number[]): BenchResults => {
      const runs = rps2.flatMap((rps, i) => [run(i + 1, 1, 1000, 40), run(i + 1, 2, rps, p99s[i]!)]);
      const ratios = rps2.map((rps) => rps / 1000);
      return { ...base, workers: { concurrency: 8, queries: 10, rounds: 3, throughputSeconds: 20, client: "wrk", runs, ratios, ratio: median(ratios), firstP99: median(p99s) } };
    };
    const passing = r([1800, 1500, 1750], [25, 40, 28]);
    expect(verdict(passing, "throughput WORKERS=2 ÷ WORKERS=1")).toMatchObject({ target: "≥ 1.7×", verdict: "PASS", value: "1.750× (rounds 1.80 / 1.50 / 1.75)" });
    expect(verdict(passing, "WORKERS=2, first pass p99")).toMatchObject({ target: "≤ 30 ms", verdict: "PASS", value: "28.0 ms (rounds 25.0 / 40.0 / 28.0 ms)" });
    expect(verdict(passing, "WORKERS=2, 20 s runs, by round")?.value).toMatch(/^1,800 \/ 1,500 \/ 1,750 req\/s; p99 9 \/ 9 \/ 9 ms; /);
    // The section names the load generator; results from before it was recorded were autocannon's.
    expect(resultRows(passing).find((row) => row.section.startsWith("8 workers"))?.section).toContain("then for 20 s from wrk, per fresh server");
    delete passing.workers!.client;
    expect(resultRows(passing).find((row) => row.section.startsWith("8 workers"))?.section).toContain("then for 20 s from autocannon, per fresh server");
    // Where the CPU went: medians over the rounds, per main thread; no row without the counters.
    expect(resultRows(passing).filter((row) => row.metric.includes("where the CPU went"))).toEqual([]);
    const cpu = (main: number, helpers: number) => ({ seconds: 20, mains: [{ cores: main, waiting: 0.2 }, { cores: main - 0.1, waiting: 0.3 }], helpers, primary: 0.004, machine: 1.9, steal: 0.01, cores: 2 });
    passing.workers!.runs.filter((run) => run.workers === 2).forEach((run, i) => Object.assign(run, { cpu: cpu([0.8, 0.7, 0.9][i]!, [0.1, 0.3, 0.2][i]!), firstCpu: cpu(0.6, 0.4) }));
    expect(verdict(passing, "WORKERS=2, where the CPU went in the 20 s runs")).toMatchObject({
      // Requests per main-thread core-second: 1800 ÷ 1.5, 1500 ÷ 1.3, 1750 ÷ 1.7, median 1154.
      value: "main threads 0.80 + 0.70 cores, waiting for a core 20% + 30% of the time; their other threads 0.20 cores; primary 0.00; machine 1.90 of 2 cores busy, 0.01 stolen; 1,154 requests per second of main-thread time",
      verdict: "",
    });
    expect(verdict(passing, "WORKERS=2, where the CPU went in the first passes")?.value).toMatch(/^main threads 0\.60 \+ 0\.50 cores, .*; their other threads 0\.40 cores;/);
    expect(verdict(passing, "WORKERS=1, where the CPU went")).toBeUndefined();
    // The warm-ups: their throughput by round and their ratio, reported without a verdict; an error in one fails the verdicts too.
    expect(resultRows(passing).filter((row) => row.metric.includes("warm-up"))).toEqual([]);
    passing.workers!.warmupSeconds = 10;
    passing.workers!.runs.forEach((run) => Object.assign(run, { warmup: { requestsPerSecond: run.workers === 1 ? 900 : [1200, 1350, 1440][run.round - 1]!, errors: 0 } }));
    expect(resultRows(passing).find((row) => row.section.startsWith("8 workers"))?.section).toContain("then for 20 s from autocannon, 10 s of warm-up first, per fresh server");
    expect(verdict(passing, "WORKERS=2, 10 s warm-ups (not the throughput), by round")).toMatchObject({ value: "1,200 / 1,350 / 1,440 req/s", verdict: "" });
    expect(verdict(passing, "warm-ups (10 s): throughput WORKERS=2 ÷ WORKERS=1")).toMatchObject({ value: "1.500× (rounds 1.33 / 1.50 / 1.60)", target: "", verdict: "" });
    expect(verdict(passing, "throughput WORKERS=2 ÷ WORKERS=1 (20 s runs)")?.verdict).toBe("PASS");
    passing.workers!.runs[0]!.warmup!.errors = 2;
    expect(verdict(passing, "WORKERS=1, 10 s warm-ups (not the throughput), by round")?.value).toBe("900 / 900 / 900 req/s, 2 errors");
    expect(verdict(passing, "throughput WORKERS=2 ÷ WORKERS=1 (20 s runs)")?.verdict).toBe("MISS");
    passing.workers!.runs[0]!.warmup!.errors = 0;
    const missing = r([1800, 1500, 1698], [25, 31, 32]);
    expect(verdict(missing, "throughput WORKERS=2 ÷ WORKERS=1")).toMatchObject({ verdict: "MISS", value: "1.698× (rounds 1.80 / 1.50 / 1.70)" });
    expect(verdict(missing, "WORKERS=2, first pass p99")?.verdict).toBe("MISS");
    // Memory with two workers: judged on PSS, RSS shown beside; none without PSS (results written before it was recorded).
    expect(resultRows(passing).filter((row) => row.metric.startsWith("WORKERS=2, memory of all processes"))).toEqual([]);
    passing.workers!.runs.forEach((run) => Object.assign(run, { rssMiB: run.workers === 2 ? 9000 : 4500, pssMiB: run.workers === 2 ? [7000, 8192, 7500][run.round - 1]! : 4400 }));
    expect(verdict(passing, "WORKERS=2, memory of all processes")).toMatchObject({ value: "PSS 8,192 MiB; RSS 9,000 MiB", target: "≤ 8 GiB", verdict: "PASS" });
    passing.workers!.runs[1]!.pssMiB = 8193;
    expect(verdict(passing, "WORKERS=2, memory of all processes")?.verdict).toBe("MISS");
    expect(verdict(passing, "WORKERS=2, 20 s runs, by round")?.value).toMatch(/RSS of all processes up to 9,000 MiB, PSS up to 8,193 MiB$/);
    // An error in any run fails both verdicts.
    passing.workers!.runs[3]!.timed.non2xx = 1;
    expect(verdict(passing, "throughput WORKERS=2 ÷ WORKERS=1")?.verdict).toBe("MISS");
  });

  it("workers results of the single-round format are named as such, not reported", () => {
    const old = { ...base, workers: { concurrency: 8, queries: 10, throughputSeconds: 20, runs: [], ratio: 1.8 } } as unknown as BenchResults;
    expect(resultRows(old).filter((row) => row.section.startsWith("8 workers"))).toEqual([
      expect.objectContaining({ value: "not shown: results of an older bench; rerun --phases workers", verdict: "" }),
    ]);
  });

  it("the workers phase alternates the two settings from round to round and takes medians", () => {
    expect([1, 2, 3, 4].map(roundOrder)).toEqual([[1, 2], [2, 1], [1, 2], [2, 1]]);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it("serving with Redis is held to 70% of bare, and a run without Redis says so in one row without a verdict", () => {
    const figures = (rps: number) => ({ requestsPerSecond: rps, megabytesPerSecond: 1, p99Ms: 5, non2xx: 0, errors: 0 });
    const row = (ratio: number) => ({ name: "GET /v1/transcript/:id", server: figures(ratio * 1000), bare: figures(1000), ratio });
    const withRedis = (ratio: number): BenchResults => ({ ...base, redis: { url: "redis://127.0.0.1:6379", rows: [row(ratio)] } });
    expect(verdict(withRedis(0.75), "GET /v1/transcript/:id")).toMatchObject({ target: "≥ 70% of bare", verdict: "PASS" });
    expect(verdict(withRedis(0.65), "GET /v1/transcript/:id")?.verdict).toBe("MISS");
    const skipped = resultRows({ ...base, redis: { url: "redis://127.0.0.1:6379", skipped: "no Redis answered at redis://127.0.0.1:6379" } });
    expect(skipped).toEqual([expect.objectContaining({ value: "not run: no Redis answered at redis://127.0.0.1:6379", verdict: "" })]);
  });

  it("a run of opt-in phases alone is written as one section per phase, so it never replaces the full run's, and one phase rerun keeps the others' rows", () => {
    const redis = { url: "redis://h", skipped: "no Redis" };
    const pgPeer = { url: "postgres://h/", skipped: "no PostgreSQL" };
    const both: BenchResults = { ...base, build: undefined, redis, pgPeer, load: { redis: 1.5, "pg-peer": 2.5, end: 3 }, phaseSeconds: { redis: 10, "pg-peer": 20 } };
    const parts = reportParts(both);
    expect(parts.map(sectionHeading)).toEqual(["## 2,000 videos, artifact set reused, serving with Redis", "## 2,000 videos, artifact set reused, PostgreSQL peer"]);
    expect(parts.map((part) => [part.redis, part.pgPeer, part.load, part.phaseSeconds])).toEqual([
      [redis, undefined, { redis: 1.5 }, { redis: 10 }],
      [undefined, pgPeer, { "pg-peer": 2.5 }, { "pg-peer": 20 }],
    ]);
    // With the full run's phases, the opt-in rows stay in the full run's one section.
    expect(reportParts({ ...both, search: {} as BenchResults["search"] })).toHaveLength(1);

    const report = reportText("", ...parts.map((part) => markdownSection(part, resultRows(part))));
    const rerun: BenchResults = { ...base, build: undefined, startedAt: "2026-02-02T00:00:00Z", redis: { url: "redis://h", skipped: "still no Redis" }, load: {} };
    const after = reportText(report, ...reportParts(rerun).map((part) => markdownSection(part, resultRows(part))));
    expect(after.match(/^## .*$/gm)).toEqual(["## 2,000 videos, artifact set reused, serving with Redis", "## 2,000 videos, artifact set reused, PostgreSQL peer"]);
    expect(after).toContain("not run: still no Redis");
    expect(after).not.toContain("not run: no Redis");
    expect(after).toContain("not run: no PostgreSQL");
  });

  it("a side by side run with opt-in phases is written as one section for the side by side and one per phase", () => {
    const compare = { otherTree: "/tmp/before", rounds: 1, rows: [] } as unknown as BenchResults["compare"];
    const redis = { url: "redis://h", skipped: "no Redis" };
    const run: BenchResults = { ...base, build: undefined, compare, redis, load: { compare: 1, redis: 2, end: 3 }, phaseSeconds: { compare: 5, redis: 6 } };
    const parts = reportParts(run);
    expect(parts.map(sectionHeading)).toEqual(["## 2,000 videos, artifact set reused, side by side", "## 2,000 videos, artifact set reused, serving with Redis"]);
    expect(parts.map((part) => [part.compare, part.redis, part.load, part.phaseSeconds])).toEqual([
      [compare, undefined, { compare: 1 }, { compare: 5 }],
      [undefined, redis, { redis: 2 }, { redis: 6 }],
    ]);
    // A side by side alone stays one section.
    expect(reportParts({ ...run, redis: undefined })).toHaveLength(1);
  });

  it("a section of several opt-in phases from before they had one each is split by phase, keeping its header and the set's rows in each", () => {
    const legacy = [
      "## 500,000 videos, full pipeline, opt-in phases",
      "",
      "- date: old",
      "- command: `npm run bench -- --phases mcp,workers`",
      "",
      "| Section | Metric | Value | Target | |",
      "|---|---|---|---|---|",
      "| 1 corpus+artifacts (reused) | corpus | 500,000 videos |  |  |",
      "| 7 MCP vs REST [load 0.4] | MCP p50 ÷ REST p50 | 1.10× | ≤ 1.15 | PASS |",
      "| 8 workers (node:cluster) [load 1.6] | throughput | 1.697× | ≥ 1.7× | MISS |",
      "",
    ].join("\n");
    const split = reportText(legacy);
    expect(split.match(/^## .*$/gm)).toEqual(["## 500,000 videos, full pipeline, MCP vs REST", "## 500,000 videos, full pipeline, workers"]);
    const [mcp, workers] = split.split(/(?=^## )/m).slice(1);
    for (const part of [mcp!, workers!]) expect(part).toContain("- command: `npm run bench -- --phases mcp,workers`\n\n| Section | Metric | Value | Target | |\n|---|---|---|---|---|\n| 1 corpus+artifacts (reused) | corpus |");
    expect(mcp).toContain("| 7 MCP vs REST");
    expect(mcp).not.toContain("| 8 workers");
    expect(workers).toContain("| 8 workers");
    expect(workers).not.toContain("| 7 MCP");
    // A section of the workers phase written now replaces the split one; the MCP rows stay.
    const rerun = reportText(legacy, "## 500,000 videos, full pipeline, workers\n\n- date: new\n");
    expect(rerun).toContain("- date: new");
    expect(rerun.match(/^## .*$/gm)).toEqual(["## 500,000 videos, full pipeline, MCP vs REST", "## 500,000 videos, full pipeline, workers"]);
    expect(reportText(split)).toBe(split);
  });
});

describe("the opt-in phases on a published set of a few videos", () => {
  const work = mkdtempSync(join(tmpdir(), "bench-opt-in-"));
  const dataDir = join(work, "data");
  const logPath = join(work, "server.log");
  let apiKey = "";
  let server: ServerProcess | undefined;
  const queries: BenchQuery[] = [
    { q: "photosynthesis", limit: 10, offset: 0, kind: "1w" },
    { q: "energy", limit: 10, offset: 0, channel: CHANNEL_B, kind: "1w +channel" },
    { q: "\"green plants\"", limit: 10, offset: 0, kind: "phrase" },
    { q: "zzzzunknown", limit: 10, offset: 0, kind: "none" },
  ];

  beforeAll(async () => {
    mkdirSync(dataDir);
    const dir = newBuildDir(dataDir);
    await buildArtifacts({ records: sampleRecords(), outDir: dir, dataset: "bench-test" });
    await publishBuild(dataDir, dir);
    const keys = openKeyStore({ dataDir });
    apiKey = keys.create({ plan: "pro", name: "bench" }).key;
    keys.close();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("mcp: times every query over both protocols, and counts a tool's refusal as an error", async () => {
    server = await startServer({ dataDir, logPath, probePath: "/healthz", env: { ...TEST_SERVER_ENV } });
    const both = await compareMcpWithRest({ origin: server.origin, apiKey, queries, rounds: 2, budgetSeconds: 60, log: () => {} });
    expect(both.rest).toMatchObject({ count: 8, errors: 0 });
    expect(both.mcp).toMatchObject({ count: 8, errors: 0 });
    expect(both.p50Ratio).toBeCloseTo(both.mcp.p50 / both.rest.p50, 6);
    // Not a channel id: REST answers 400, the tool a result marked isError.
    const refused = await compareMcpWithRest({ origin: server.origin, apiKey, queries: [{ ...queries[0]!, channel: "not a channel" }], rounds: 1, budgetSeconds: 60, log: () => {} });
    expect(refused.rest.errors).toBe(1);
    expect(refused.mcp.errors).toBe(1);
  }, 120_000);

  it("redis: serves GET /v1/transcript with the Redis rate limiter beside the bare server", async (context) => {
    // Skipped, with one line saying so, only where no Redis answers; .ci/run requires one.
    if (!(await redisAvailable("the bench's redis phase"))) return context.skip();
    const withRedis = await startServer({ dataDir, logPath, probePath: "/healthz", env: { ...TEST_SERVER_ENV, REDIS_URL, REDIS_KEY_PREFIX: `bench-test-${process.pid}:` } });
    try {
      const rows = await measureServing({
        origin: withRedis.origin,
        apiKey,
        videoIds: [videoId(1), videoId(2), videoId(3)],
        seconds: 1,
        connections: 4,
        responsesPath: join(work, "responses.json"),
        log: () => {},
        only: "get",
      });
      expect(rows.map((r) => r.name)).toEqual(["GET /v1/transcript/:id"]);
      expect(rows[0]!.server.requestsPerSecond).toBeGreaterThan(0);
      expect(rows[0]!.server.non2xx).toBe(0);
      expect(rows[0]!.ratio).toBeCloseTo(rows[0]!.server.requestsPerSecond / rows[0]!.bare.requestsPerSecond, 6);
    } finally {
      await withRedis.stop();
    }
  }, 120_000);

  it("workers: waits for the primary's line that every worker listens, times a first pass and a run of given length with 1 and 2 workers", async () => {
    await server?.stop();
    server = undefined;
    const started: number[] = [];
    const paths = queries.map((q) => `/v1/search?q=${encodeURIComponent(q.q)}`);
    const client = wrkAvailable() ? "wrk" : "autocannon";
    const result = await compareWorkers({
      start: async (workers) => {
        started.push(workers);
        const offset = existsSync(logPath) ? statSync(logPath).size : 0;
        const s = await startServer({ dataDir, logPath, probePath: "/healthz", env: { ...TEST_SERVER_ENV, WORKERS: String(workers), LOG_LEVEL: "info" } });
        if (workers > 1) await waitForWorkers(logPath, offset, workers, 120_000);
        return s;
      },
      paths,
      apiKey,
      concurrency: 2,
      budgetSeconds: 60,
      throughputSeconds: 1,
      warmupSeconds: 1,
      rounds: 2,
      // The bench's own choice (test/bench/wrk.test.ts tests wrk's run alone).
      client,
      cores: cpus().length,
      log: () => {},
    });
    expect(result.client).toBe(client);
    expect(result.warmupSeconds).toBe(1);
    expect(started).toEqual([1, 2, 2, 1]);
    expect(result.runs.map((run) => [run.round, run.workers])).toEqual([[1, 1], [1, 2], [2, 2], [2, 1]]);
    for (const run of result.runs) {
      expect(run.first).toMatchObject({ count: 4, errors: 0 });
      // The query set over and over until the second is up (each answered in milliseconds here).
      expect(run.timed).toMatchObject({ errors: 0, non2xx: 0 });
      expect(run.requestsPerSecond).toBeGreaterThan(8);
      expect(run.requestsPerSecond).toBe(run.timed.requestsPerSecond);
      // A warm-up of the same load before the timed run, counted apart.
      expect(run.warmup).toMatchObject({ errors: 0 });
      expect(run.warmup!.requestsPerSecond).toBeGreaterThan(8);
      expect(run.rssMiB).toBeGreaterThan(20);
      // PSS counts what the processes share once: at most their RSS, and more than nothing.
      expect(run.pssMiB).toBeGreaterThan(10);
      expect(run.pssMiB).toBeLessThanOrEqual(run.rssMiB);
      // Each serving process's main thread answered searches in both passes; the primary is counted apart.
      for (const cpu of [run.firstCpu!, run.warmup!.cpu!, run.cpu!]) {
        expect(cpu.mains).toHaveLength(run.workers);
        for (const main of cpu.mains) expect(main.cores).toBeGreaterThan(0);
        if (run.workers === 1) expect(cpu.primary).toBe(0);
      }
      // /proc/stat counts whole-machine time in clock ticks: over the second-long run, at least what the main threads used.
      expect(run.cpu!.machine).toBeGreaterThanOrEqual(run.cpu!.mains.reduce((sum, m) => sum + m.cores, 0) * 0.9);
    }
    // The primary and its two workers hold more than one server process does.
    expect(result.runs[1]!.rssMiB).toBeGreaterThan(result.runs[0]!.rssMiB);
    const rps = (round: number, workers: number) => result.runs.find((run) => run.round === round && run.workers === workers)!.requestsPerSecond;
    expect(result.ratios[0]).toBeCloseTo(rps(1, 2) / rps(1, 1), 6);
    expect(result.ratios[1]).toBeCloseTo(rps(2, 2) / rps(2, 1), 6);
    expect(result.ratio).toBeCloseTo(median(result.ratios), 6);
    expect(result.firstP99).toBeCloseTo(median(result.runs.filter((run) => run.workers === 2).map((run) => run.first.p99)), 6);
  }, 240_000);

  it("waitForWorkers gives up with the log's path when no such line comes", async () => {
    const log = join(work, "quiet.log");
    writeFileSync(log, JSON.stringify({ msg: "listening", workers: 1 }) + "\n");
    await expect(waitForWorkers(log, 0, 2, 300)).rejects.toThrow(`the server did not log that its 2 workers listen within 300 ms; see ${log}`);
    await expect(waitForWorkers(log, 0, 1, 300)).resolves.toBeUndefined();
  });

  it("dataset: exports both formats and rebuilds from Parquet in a scratch folder it removes, with the children's peak RSS", async () => {
    const scratch = join(work, "scratch");
    const d = await measureDataset({ dataDir, scratch, logsDir: work, log: () => {} });
    expect(d.parquet.files).toBe(2);
    expect(d.jsonl.files).toBe(2);
    expect(d.parquet.bytes).toBeGreaterThan(0);
    expect(d.jsonl.bytes).toBeGreaterThan(0);
    expect(d.build.databaseBytes).toBeGreaterThan(0);
    expect(d.sourceDatabaseBytes).toBeGreaterThan(0);
    for (const c of [d.parquet, d.jsonl, d.build]) {
      expect(c.seconds).toBeGreaterThan(0);
      expect(c.peakRssBytes).toBeGreaterThan(20 * 2 ** 20);
    }
    expect(existsSync(scratch)).toBe(false);
    // The bench's own set is untouched: still the one published.
    expect(existsSync(join(dataDirLayout(dataDir).current, "transcripts.db"))).toBe(true);
  }, 240_000);

  it("a pipeline command that fails names its log", async () => {
    const peakFile = join(work, "peak");
    await expect(timePipelineCommand(["export", "--format", "xml", "--out", join(work, "x")], { dataDir, logPath: join(work, "bad.log"), peakFile })).rejects.toThrow(
      `npm run pipeline -- export --format xml --out ${join(work, "x")} exited 2; see ${join(work, "bad.log")}`,
    );
  }, 60_000);

  it("pg-peer: loads the transcripts, answers the queries with their filters as ours does, and drops its database", async (context) => {
    // Skipped, with one line saying so, only where no PostgreSQL answers; .ci/run requires one.
    if (!(await postgresAvailable("the bench's pg-peer phase"))) return context.skip();
    const admin = new URL(POSTGRES_URL);
    const p = await comparePostgres({ artifactsDir: dataDirLayout(dataDir).current, queries, adminUrl: admin.toString(), maxDocs: undefined, budgetSeconds: 60, log: () => {} });
    // Every video of the sample with a transcript (video 5 has none); one result each for the first three queries, none for the last.
    expect(p).toMatchObject({ docs: sampleRecords().filter((r) => r.transcripts.length > 0).length, capped: false, common: 4 });
    expect(p.pg).toMatchObject({ count: 4, errors: 0 });
    expect(p.meanResults).toBe(3 / 4);
    expect(p.ourMeanResults).toBe(3 / 4);
    const capped = await comparePostgres({ artifactsDir: dataDirLayout(dataDir).current, queries, adminUrl: admin.toString(), maxDocs: 2, budgetSeconds: 60, log: () => {} });
    expect(capped).toMatchObject({ docs: 2, capped: true });
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      const left = await client.query("SELECT datname FROM pg_database WHERE datname LIKE $1", [`bench_${process.pid}_%`]);
      expect(left.rows).toEqual([]);
    } finally {
      await client.end();
    }
  }, 120_000);
});
