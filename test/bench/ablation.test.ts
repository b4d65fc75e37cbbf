/**
 * The bench's ablation of search's memory helpers (scripts/bench/ablation.ts):
 * which configurations it runs, that each starts a server twice with its
 * settings and times both first passes against it, and the table and report
 * section it writes.
 */
import { createServer, type Server } from "node:http";
import { describe, expect, it } from "vitest";
import { ablationConfigs, ablationTable, compareConfigs, compareSummary, measureAblation, type AblationRow } from "../../scripts/bench/ablation.js";
import { BenchUsageError, DEFAULT_PHASES, parseBenchArgs } from "../../scripts/bench/options.js";
import { markdownSection, sectionHeading } from "../../scripts/bench/report.js";
import type { BenchResults } from "../../scripts/bench/run.js";
import type { ServerProcess } from "../../scripts/bench/server-process.js";
import { MEMORY_HELPERS } from "../../settings/rows.js";

const summary = (p50: number, p99: number) => ({ count: 10, errors: 0, p50, p95: p99, p99, max: p99, mean: p50, seconds: 1, truncated: false });

describe("the ablation", () => {
  it("is a phase of its own, not run by default", () => {
    expect(DEFAULT_PHASES).not.toContain("ablation");
    expect(parseBenchArgs([], 2).phases).not.toContain("ablation");
    expect(parseBenchArgs(["--skip-pipeline", "--phases", "ablation"], 2)).toMatchObject({ phases: ["ablation"], skipPipeline: true });
  });

  it("runs all, none, each helper off and the word bitmaps off", () => {
    const configs = ablationConfigs();
    expect(configs.map((c) => c.name)).toEqual(["all", "none", ...MEMORY_HELPERS.map((h) => `-${h}`), "-bitmaps"]);
    expect(configs.find((c) => c.name === "-prefetch")!.env).toEqual({ SEARCH_MEMORY_HELPERS: "-prefetch" });
    expect(configs.find((c) => c.name === "-bitmaps")!.env).toEqual({ SEARCH_MEMORY_HELPERS: "all", SEARCH_WORD_BITMAPS: "off" });
  });

  it("starts a server twice per configuration with its settings and times every path of both first passes", async () => {
    const started: Record<string, string>[] = [];
    const seen: string[] = [];
    const servers: Server[] = [];
    const start = async (env: Record<string, string>): Promise<ServerProcess> => {
      started.push(env);
      const server = createServer((req, res) => {
        seen.push(req.url ?? "");
        res.end("{}");
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as { port: number }).port;
      return {
        origin: `http://127.0.0.1:${port}`,
        pid: process.pid,
        startMs: 1500,
        readyMs: 1500,
        rssBytes: () => 300 * 2 ** 20,
        stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    };
    const paths = ["/v1/search?q=a", "/v1/search?q=b", "/v1/search?q=c"];
    const rows = await measureAblation({ start, paths, apiKey: "k", concurrency: 2, budgetSeconds: 30, dropCachePath: undefined, log: () => {} });
    const configs = ablationConfigs();
    expect(rows.map((r) => r.name)).toEqual(configs.map((c) => c.name));
    expect(started).toEqual(configs.flatMap((c) => [c.env, c.env]));
    expect(seen).toHaveLength(configs.length * 2 * paths.length);
    for (const row of rows) {
      expect(row).toMatchObject({ startMs: 1500, rssMiB: 300 });
      expect(row.sequentialFirst).toMatchObject({ count: 3, errors: 0 });
      expect(row.concurrentFirst).toMatchObject({ count: 3, errors: 0 });
    }
    expect(servers.every((s) => !s.listening)).toBe(true);
  });

  it("writes one row per configuration with its p99s as a ratio to all, in a section of its own", () => {
    const row = (name: string, seqP99: number, concP99: number): AblationRow => ({
      name,
      env: {},
      startMs: 12_345,
      readyMs: 20_000,
      rssMiB: 2048,
      sequentialFirst: summary(3, seqP99),
      concurrentFirst: summary(4, concP99),
    });
    const table = ablationTable([row("all", 20, 40), row("-texts", 30, 100)], 8);
    expect(table[0]).toContain("concurrency 8 first pass p99 ms");
    expect(table[2]).toBe("| all | 12.35 | 20.00 | 2,048 | 3.00 / 20.0 | 40.0 | 1.00× | 1.00× |");
    expect(table[3]).toBe("| -texts | 12.35 | 20.00 | 2,048 | 3.00 / 30.0 | 100.0 | 1.50× | 2.50× |");
    // A row of a run before readiness was measured (results.json of an older tree) says so.
    expect(ablationTable([{ ...row("all", 20, 40), readyMs: undefined }], 8)[2]).toBe("| all | 12.35 | n/a | 2,048 | 3.00 / 20.0 | 40.0 | 1.00× | 1.00× |");
    const results = {
      size: 2000,
      seed: 1,
      command: "npm run bench -- --phases ablation",
      machine: { cpu: "x", cores: 2, ramGiB: 1, node: "v20", commit: "abc" },
      startedAt: "2026-11-25T00:00:00Z",
      load: {},
      build: { mode: "direct" },
      ablation: [row("all", 20, 40)],
    } as unknown as BenchResults;
    expect(sectionHeading(results)).toBe("## 2,000 videos, direct build, memory helpers ablation");
    expect(markdownSection(results, [])).toContain("| all | 12.35 | 20.00 | 2,048 |");
    // With the server phases in the same run, the ablation joins the run's own section.
    expect(sectionHeading({ ...results, search: {} } as unknown as BenchResults)).toBe("## 2,000 videos, direct build");
  });

  it("compares this checkout with --compare-tree, alternated twice, each started from its own tree, the first in a round alternating too", async () => {
    expect(DEFAULT_PHASES).not.toContain("compare");
    expect(() => parseBenchArgs(["--phases", "compare"], 2)).toThrow(new BenchUsageError('The "compare" phase needs "--compare-tree DIR"'));
    expect(parseBenchArgs(["--phases", "compare", "--compare-tree", "/tmp/other"], 2)).toMatchObject({ phases: ["compare"], compareTree: "/tmp/other" });
    const configs = compareConfigs("/tmp/other", "/tmp/other at abc1234");
    expect(configs.map((c) => [c.name, c.repoRoot])).toEqual([
      ["this tree", undefined],
      ["/tmp/other at abc1234", "/tmp/other"],
      ["/tmp/other at abc1234, again", "/tmp/other"],
      ["this tree, again", undefined],
    ]);
    const roots: (string | undefined)[] = [];
    const start = async (_env: Record<string, string>, repoRoot?: string): Promise<ServerProcess> => {
      roots.push(repoRoot);
      const server = createServer((_req, res) => res.end("{}"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as { port: number }).port;
      return { origin: `http://127.0.0.1:${port}`, pid: process.pid, startMs: 1, readyMs: 1, rssBytes: () => 0, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
    };
    const rows = await measureAblation({ start, configs, paths: ["/v1/search?q=a"], apiKey: "k", concurrency: 2, budgetSeconds: 30, dropCachePath: undefined, log: () => {} });
    expect(rows.map((r) => r.name)).toEqual(configs.map((c) => c.name));
    // Two starts per configuration (the concurrent pass meets an empty result cache), each from its tree.
    expect(roots).toEqual([undefined, undefined, "/tmp/other", "/tmp/other", "/tmp/other", "/tmp/other", undefined, undefined]);
    expect(ablationTable(rows, 8, "this tree", "server")[0]).toContain("| server | start s |");
    expect(parseBenchArgs(["--phases", "compare", "--compare-tree", "/tmp/other", "--compare-rounds", "3"], 2).compareRounds).toBe(3);
    expect(compareConfigs("/tmp/other", "other", 3).map((c) => c.name)).toEqual(["this tree", "other", "other, again", "this tree, again", "this tree, round 3", "other, round 3"]);
  });

  it("sums the side by side up as this tree's mean over the rounds ÷ the other's", () => {
    const row = (name: string, p50: number, p99: number, c8: number, startMs: number): AblationRow => ({
      name,
      env: {},
      startMs,
      readyMs: startMs * 2,
      rssMiB: 1,
      sequentialFirst: { count: 1, errors: 0, p50, p95: p99, p99, max: p99, mean: p50, seconds: 1, truncated: false },
      concurrentFirst: { count: 1, errors: 0, p50: c8, p95: c8, p99: c8, max: c8, mean: c8, seconds: 1, truncated: false },
    });
    const rows = [row("this tree", 3, 16, 50, 8000), row("old", 2, 15, 40, 6000), row("this tree, again", 5, 20, 54, 10000), row("old, again", 2, 17, 44, 8000)];
    expect(compareSummary(rows)).toEqual([
      { figure: "sequential first pass p50", here: 4, there: 2, ratio: 2 },
      { figure: "sequential first pass p99", here: 18, there: 16, ratio: 1.125 },
      { figure: "concurrency 8 first pass p99", here: 52, there: 42, ratio: 52 / 42 },
      { figure: "start", here: 9, there: 7, ratio: 9 / 7 },
      { figure: "ready", here: 18, there: 14, ratio: 18 / 14 },
    ]);
    expect(compareSummary(rows.slice(0, 1))).toEqual([]);
  });
});
