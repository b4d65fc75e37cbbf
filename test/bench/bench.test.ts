import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BenchUsageError, parseBenchArgs } from "../../scripts/bench/options.js";
import { readIntoPageCache } from "../../scripts/bench/page-cache.js";
import { REPORT_HEADER, reportText, resultRows, writeReport } from "../../scripts/bench/report.js";
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
    // The first start found no record of a verified set, so it hashed every file and logged how long that took.
    expect(results.server!.hashMs).toBeGreaterThanOrEqual(0);
    expect(results.recall!.items).toBe(20);
    expect(results.recall!.recallAt10).toBeGreaterThan(0.5);
    expect(results.peers!.runs.map((r) => r.name)).toHaveLength(3);
    expect(results.peers!.common).toBe(24);
  }, 180_000);

  it("reports each measured figure with its target, and replaces the section of the same size in the markdown", async () => {
    const rows = resultRows(results);
    expect(rows.find((r) => r.metric.startsWith("known-item recall@10"))?.target).toBe("≥ 0.95");
    expect(rows.find((r) => r.metric.startsWith("start to first answer"))?.metric).toBe(
      "start to first answer (/healthz), every file hashed against the manifest (no record of an earlier check), database first dropped from the page cache",
    );
    expect(rows.some((r) => r.metric.startsWith("p99 ratio plain SQLite FTS5"))).toBe(true);
    const path = join(work, "BENCHMARKS.md");
    await writeReport(path, results);
    await writeReport(path, results);
    const text = readFileSync(path, "utf8");
    expect(text.match(/^## 200 videos, direct build$/gm)).toHaveLength(1);
    expect(text).toContain("- command: `test`");
  });
});

describe("BENCHMARKS.md as the bench writes it", () => {
  const section = (size: string, path: string, date: string) =>
    [`## ${size} videos, ${path}`, "", `- date: ${date}`, "- machine: CPU X, 2 cores, 23.5 GiB RAM, Node v20", "- commit: abc1234 at the start", "- command: `npm run bench`", "", "| Section | Metric | Value | Target | |", "|---|---|---|---|---|", `| 2 server | RSS after load | ${date} | ≤ 8 GiB | PASS |`, ""].join("\n");
  const old = [
    "# Benchmarks\n\nAn older header.\n",
    "## Status (a session, 500,000 videos)\n\nA summary written by hand.\n",
    "### Tried, not kept (abc1234)\n\nA running log.\n",
    section("20,000", "direct build", "old-20k"),
    section("2,000", "full pipeline", "old-2k"),
  ].join("\n");

  it("is the header and the latest section of each size and path in ascending size; a run replaces its own section", () => {
    const text = reportText(old, section("2,000", "full pipeline", "new-2k"));
    expect(text.startsWith(REPORT_HEADER)).toBe(true);
    expect(text.match(/^## .*$/gm)).toEqual(["## 2,000 videos, full pipeline", "## 20,000 videos, direct build"]);
    expect(text).toContain("new-2k");
    expect(text).not.toContain("old-2k");
    expect(text).toContain(section("20,000", "direct build", "old-20k"));
    for (const dropped of ["An older header", "A summary written by hand", "A running log", "### "]) expect(text).not.toContain(dropped);
  });

  it("adds a size it has no section for, and rewriting changes nothing", () => {
    const once = reportText(old, section("500,000", "full pipeline", "new-500k"));
    expect(once.match(/^## .*$/gm)).toEqual(["## 2,000 videos, full pipeline", "## 20,000 videos, direct build", "## 500,000 videos, full pipeline"]);
    expect(reportText(once)).toBe(once);
  });

  it("the repository's BENCHMARKS.md is in that form: the header, then the bench's sections, which a rewrite keeps as they are", () => {
    const file = readFileSync(join(import.meta.dirname, "../../BENCHMARKS.md"), "utf8");
    expect(file.startsWith(REPORT_HEADER)).toBe(true);
    expect(file.match(/^## [\d,]+ videos, /gm)?.length).toBeGreaterThan(0);
    expect(reportText(file)).toBe(file);
  });
});

describe("the page-cache helpers", () => {
  it("reads a whole file through (readIntoPageCache), and fails on a missing one", () => {
    const dir = mkdtempSync(join(tmpdir(), "page-cache-"));
    try {
      const file = join(dir, "data.bin");
      writeFileSync(file, Buffer.alloc(20 * 2 ** 20 + 5, 7));
      const seconds = readIntoPageCache(file);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThan(60);
      expect(() => readIntoPageCache(join(dir, "missing.bin"))).toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
