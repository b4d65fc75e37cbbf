/**
 * The bench's ingest-limits phase: its options, its rows and their
 * verdicts, and a small real run (the limited stand-in, two loopback exits,
 * `npm run pipeline -- run` and one worker on a fresh PostgreSQL database)
 * whose figures are checked against the corpus it crawled.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { exitRateFor, measureIngestLimits, splitExits, type IngestLimitsFigures, type IngestLimitsRun } from "../../scripts/bench/ingest-limits.js";
import { ingestLimitsRows, runThroughput } from "../../scripts/bench/ingest-limits-rows.js";
import { BenchUsageError, DEFAULT_PHASES, parseBenchArgs } from "../../scripts/bench/options.js";
import { markdownSection, reportParts, resultRows, sectionHeading } from "../../scripts/bench/report.js";
import type { BenchResults } from "../../scripts/bench/run.js";
import { POSTGRES_URL, postgresAvailable } from "../helpers/services.js";

const base: BenchResults = { size: 20_000, seed: 1, command: "test", machine: { cpu: "X", cores: 2, ramGiB: 8, node: "v20", commit: "abc" }, startedAt: "2026-01-01T00:00:00Z", load: {} };

function run(workers: number, overrides: { span?: number; total?: number; blocked?: number; during?: number; lost?: number; twice?: number; wrong?: number } = {}): IngestLimitsRun {
  return {
    workers,
    hosts: splitExits(8, workers),
    exitCode: 0,
    runSeconds: (overrides.span ?? 800) + 10,
    spanSeconds: overrides.span ?? 800,
    load: 2,
    perExit: [],
    requests: { total: overrides.total ?? 60_000, blocked: overrides.blocked ?? 0, duringCoolDown: overrides.during ?? 0, notThroughExits: 0 },
    videos: { corpus: 20_000, withTranscript: 19_600, stored: 19_600 - (overrides.lost ?? 0) - (overrides.wrong ?? 0), permanent: 400 + (overrides.wrong ?? 0), wronglyPermanent: overrides.wrong ?? 0, lost: overrides.lost ?? 0, fetchedTwice: overrides.twice ?? 0, playerAgain: 0 },
  };
}
const figures = (runs: IngestLimitsRun[]): IngestLimitsFigures => ({ size: 20_000, exits: 8, budget: 100, windowMs: 10_000, coolDownMs: 10_000, exitRatePerMinute: 570, exitInFlight: 4, runs });

describe("the ingest-limits phase's options", () => {
  it("is opt-in, with 8 exits of 100 requests per 10 s and runs with 1 and 3 workers by default", () => {
    expect(DEFAULT_PHASES).not.toContain("ingest-limits");
    expect(parseBenchArgs(["--phases", "ingest-limits"], 2)).toMatchObject({ phases: ["ingest-limits"], limitsExits: 8, limitsBudget: 100, limitsWindowMs: 10_000, limitsWorkers: [1, 3] });
    expect(parseBenchArgs(["--limits-exits", "2", "--limits-workers", "1", "--limits-budget", "20", "--limits-window-ms", "1000"], 2)).toMatchObject({ limitsExits: 2, limitsWorkers: [1], limitsBudget: 20, limitsWindowMs: 1000 });
    expect(() => parseBenchArgs(["--limits-workers", "1,x"], 2)).toThrow(new BenchUsageError('Expected the "--limits-workers" option to list worker counts from 1 to 64, separated by commas'));
    expect(() => parseBenchArgs(["--limits-exits", "3", "--limits-workers", "3"], 2)).toThrow(/an exit of its own/);
  });

  it("paces each exit at 95% of the budget and splits the exits among the run and the workers, the run first", () => {
    expect(exitRateFor(100, 10_000)).toBe(570);
    expect(exitRateFor(8, 5_000)).toBe(91);
    expect(splitExits(8, 1).map((h) => [h.name, h.exits, h.concurrency])).toEqual([["run", 4, 16], ["worker 1", 4, 16]]);
    expect(splitExits(8, 3).map((h) => h.exits)).toEqual([2, 2, 2, 2]);
    expect(splitExits(8, 2).map((h) => h.exits)).toEqual([3, 3, 2]);
    expect(() => splitExits(2, 2)).toThrow(/cannot be split/);
  });
});

describe("the ingest-limits phase's rows", () => {
  it("hold throughput to 90% of exits × budget, blocks to 1%, and cool-downs, fetches twice and losses to 0, in every run", () => {
    // Ideal: 8 × 100 / 10 s = 80 requests/s; 60,000 requests in 800 s = 75/s = 93.75%.
    expect(runThroughput(figures([run(1)]), run(1))).toMatchObject({ requestsPerSecond: 75, share: 0.9375, ideal: 80, requestsPerVideo: 3 });
    const passing = ingestLimitsRows(figures([run(1), run(3)]), "");
    expect(passing.map((row) => [row.metric, row.target, row.verdict])).toEqual([
      ["throughput: answered requests/s from first to last request, and videos/s", "≥ 90% of ideal", "PASS"],
      ["blocked answers", "≤ 1%", "PASS"],
      ["requests to an exit during its announced cool-down", "0", "PASS"],
      ["videos fetched twice (caption, or player answer without captions, served twice)", "0", "PASS"],
      ["videos lost (neither stored nor recorded permanent)", "0", "PASS"],
    ]);
    expect(passing[0]!.value).toBe(
      "1 worker + run (exits 4/4, load 2): 75.0/s = 93.8% of ideal, 25.0 videos/s of 26.7 (3.00 requests a video, crawl included), 800 s (run 810 s); " +
        "3 workers + run (exits 2/2/2/2, load 2): 75.0/s = 93.8% of ideal, 25.0 videos/s of 26.7 (3.00 requests a video, crawl included), 800 s (run 810 s)",
    );
    // In the second run: 60,000 answered in 840 s = 71.4/s = 89.3%; 1.2% blocked; one request in a cool-down; one video fetched twice; one lost.
    const missing = ingestLimitsRows(figures([run(1), run(3, { span: 840, total: 60_720, blocked: 720, during: 1, twice: 1, lost: 1 })]), "");
    expect(missing.map((row) => row.verdict)).toEqual(["MISS", "MISS", "MISS", "MISS", "MISS"]);
    expect(missing[0]!.value).toMatch(/; 3 workers \+ run \(exits 2\/2\/2\/2, load 2\): 71\.4\/s = 89\.3% of ideal, 23\.8 videos\/s of 26\.7 /);
    expect(missing[1]!.value).toMatch(/: 720 of 60,720 = 1\.19%$/);
    // A video with a transcript recorded as permanent is lost too.
    expect(ingestLimitsRows(figures([run(1, { wrong: 2 })]), "")[4]).toMatchObject({ verdict: "MISS", value: expect.stringMatching(/: 0 of 20,000, stored 19,598 of 19,600 with a transcript, 402 permanent \(2 with a transcript\), exit 0$/) });
  });

  it("are written in a section of their own, and say so when PostgreSQL did not answer", () => {
    const r: BenchResults = { ...base, ingestLimits: figures([run(1), run(3)]), load: { "ingest-limits": 1.5 } };
    expect(reportParts(r).map(sectionHeading)).toEqual(["## 20,000 videos, full pipeline, ingestion under limits"]);
    const rows = resultRows(r);
    expect(rows).toHaveLength(5);
    expect(rows.every((row) => row.section.startsWith("12 ingestion under limits: 20,000 videos, 8 exits of 100 requests per 10 s") && row.section.endsWith("[load 1.5]"))).toBe(true);
    expect(markdownSection(r, rows).trimEnd().split("\n")).toHaveLength(14);
    const skipped = resultRows({ ...base, ingestLimits: { url: "postgres://h/", skipped: "no PostgreSQL answered at postgres://h/" } });
    expect(skipped).toEqual([expect.objectContaining({ value: "not run: no PostgreSQL answered at postgres://h/", verdict: "" })]);
  });
});

describe("a small run of the ingest-limits phase", () => {
  const dir = mkdtempSync(join(tmpdir(), "bench-ingest-limits-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("crawls and fetches every video once through its exits, within the budget, and counts what the stand-in and the state saw", async (context) => {
    // Skipped, with one line saying so, only where no PostgreSQL answers (the phase's queue lives there); .ci/run requires one.
    if (!(await postgresAvailable("the bench's ingest-limits phase"))) return context.skip();
    const size = 150;
    const lines: string[] = [];
    const f = await measureIngestLimits({ size, seed: 3, exits: 2, budget: 50, windowMs: 1000, coolDownMs: 10_000, workers: [1], adminUrl: POSTGRES_URL, dir, logsDir: dir, log: (line) => lines.push(line) });
    const corpus = createSyntheticCorpus({ seed: 3, videos: size });
    const ids = Array.from({ length: size }, (_, i) => corpus.videoIdAt(i));
    const withTranscript = ids.filter((id) => corpus.videoMetadata(id)!.transcripts.length > 0).length;
    expect(withTranscript).toBeLessThan(size);
    const [only] = f.runs;
    expect(f.runs).toHaveLength(1);
    expect(only!.hosts.map((h) => h.exits)).toEqual([1, 1]);
    expect(only!.videos).toMatchObject({ corpus: size, withTranscript, stored: withTranscript, permanent: size - withTranscript, lost: 0, wronglyPermanent: 0, fetchedTwice: 0 });
    // Three requests a video with a transcript, two without one, and the crawl's pages, all through the two exits.
    expect(only!.requests.total - only!.requests.blocked).toBeGreaterThan(3 * withTranscript + 2 * (size - withTranscript));
    expect(only!.requests).toMatchObject({ duringCoolDown: 0, notThroughExits: 0 });
    // Paced at 95% of 2 × 50 requests/s: the span cannot be shorter than what the budget allows.
    expect(runThroughput(f, only!).requestsPerSecond).toBeLessThanOrEqual(100);
    expect(only!.exitCode).toBe(0);
    expect(lines.at(-1)).toMatch(/^ingest-limits, 1 worker\(s\): \d+ requests in /);
  }, 180_000);
});
