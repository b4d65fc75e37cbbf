import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BenchUsageError, parseBenchArgs } from "../../scripts/bench/options.js";
import { resultRows, writeReport } from "../../scripts/bench/report.js";
import { runBench, type BenchResults } from "../../scripts/bench/run.js";

const work = mkdtempSync(join(tmpdir(), "bench-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("bench options", () => {
  it("defaults to 500,000 videos through the pipeline, with the direct build in its own directory", () => {
    expect(parseBenchArgs([], 2)).toMatchObject({ size: 500_000, source: "auto", out: ".bench/500000-pipeline", jobs: 2 });
    expect(parseBenchArgs(["--size", "2000", "--direct"], 2)).toMatchObject({ size: 2000, source: "direct", out: ".bench/2000", dropCache: false });
    expect(parseBenchArgs(["--drop-cache"], 2)).toMatchObject({ dropCache: true });
  });

  it("rejects a malformed size and an unknown phase with exact messages", () => {
    expect(() => parseBenchArgs(["--size", "2k"], 2)).toThrow(new BenchUsageError('Expected the "--size" option to be an integer of at least 10'));
    expect(() => parseBenchArgs(["--phases", "corpus,warp"], 2)).toThrow(/Expected "--phases" to list phases out of/);
  });
});

describe("npm run bench at 200 videos", () => {
  let results: BenchResults;

  it("builds a corpus and artifacts, serves them, measures recall and the peers", async () => {
    const options = parseBenchArgs(
      ["--size", "200", "--direct", "--out", join(work, "b"), "--phases", "corpus,server,recall,peers", "--queries", "24", "--known-items", "20", "--flex-max-docs", "100", "--peer-budget", "20", "--drop-cache", "--quiet"],
      2,
    );
    results = await runBench(options, "test", () => {});
    expect(results.build).toMatchObject({ size: 200, mode: "direct", reused: false });
    expect(results.build!.transcripts).toBeGreaterThan(150);
    expect(results.server!.rssAfterLoadMiB).toBeGreaterThan(10);
    expect(results.server!.pageCacheDropped).toBe(true);
    expect(results.recall!.items).toBe(20);
    expect(results.recall!.recallAt10).toBeGreaterThan(0.5);
    expect(results.peers!.runs.map((r) => r.name)).toHaveLength(3);
    expect(results.peers!.common).toBe(24);
  }, 60_000);

  it("reports each measured figure with its target, and replaces the section of the same size in the markdown", async () => {
    const rows = resultRows(results);
    expect(rows.find((r) => r.metric.startsWith("known-item recall@10"))?.target).toBe("≥ 0.95");
    expect(rows.find((r) => r.metric.startsWith("start to first answer"))?.metric).toBe("start to first answer (/healthz), database first dropped from the page cache");
    expect(rows.some((r) => r.metric.startsWith("p99 ratio plain SQLite FTS5"))).toBe(true);
    const path = join(work, "BENCHMARKS.md");
    await writeReport(path, results, rows);
    await writeReport(path, results, rows);
    const text = readFileSync(path, "utf8");
    expect(text.match(/^## 200 videos, direct build$/gm)).toHaveLength(1);
    expect(text).toContain("- command: `test`");
  });
});
