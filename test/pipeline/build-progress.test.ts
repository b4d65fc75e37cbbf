/** The build's progress lines during long steps: per step, with counts and percent, at a bounded rate. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { createStepProgress } from "../../pipeline/build/step-progress.js";
import { makeVideo } from "../helpers/records.js";

describe("createStepProgress", () => {
  it("writes at most one line per interval, with the step, the counts and the percent", () => {
    let t = 0;
    const lines: string[] = [];
    const progress = createStepProgress((line) => lines.push(line), { intervalMs: 10_000, now: () => t });
    for (let done = 1; done <= 1000; done++) {
      t += 100; // a report every 100 ms: 100 s in all
      progress("staging records", done * 500, 500_000);
    }
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe("staging records: 50,000/500,000 (10%)");
    expect(lines[9]).toBe("staging records: 500,000/500,000 (100%)");
  });

  it("holds back a step that ends within the interval, and gives the count alone without a total", () => {
    let t = 0;
    const lines: string[] = [];
    const progress = createStepProgress((line) => lines.push(line), { intervalMs: 1000, now: () => t });
    t = 500;
    progress("short step", 10, 10);
    expect(lines).toEqual([]);
    t = 1500;
    progress("staging records", 1234, 0);
    expect(lines).toEqual(["staging records: 1,234"]);
  });
});

describe("a build's progress", () => {
  it("reports each long step with counts and percent, on the calling thread and from the index worker", async () => {
    const root = mkdtempSync(join(tmpdir(), "build-progress-"));
    try {
      const records = Array.from({ length: 2600 }, (_, i) => makeVideo(i + 1, { text: `progress word${i % 97} and some more words ${i}` }));
      const lines: string[] = [];
      await buildArtifacts({
        records,
        outDir: join(root, "set"),
        log: (line) => lines.push(line),
        // Every report becomes a line, so the test sees each step's.
        progress: createStepProgress((line) => lines.push(line), { intervalMs: 0 }),
        expectedRecords: records.length,
        // Above the records: the transcript index runs on its worker thread and reports from there.
        threadsFrom: 1,
      });
      const of = (step: string) => lines.filter((line) => line.startsWith(`${step}: `));
      expect(of("staging records")).toContain("staging records: 500/2,600 (19%)");
      expect(of("database: tables in popularity order")).toEqual(["database: tables in popularity order: 2,000/2,600 (76%)", "database: tables in popularity order: 2,600/2,600 (100%)"]);
      expect(of("database: transcript index, rows").at(-1)).toBe("database: transcript index, rows: 2,600/2,600 (100%)");
      expect(of("database: phrase-pair index, transcripts").at(-1)).toBe("database: phrase-pair index, transcripts: 2,600/2,600 (100%)");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
