/**
 * `build --input` happens whole or not at all: an import that fails, is
 * stopped or is killed at any instant leaves the pipeline state, and so
 * the set the next build publishes, as it was; an input without a valid
 * record publishes nothing; an export that does not match its manifest is
 * refused before a row is read; every skipped record says where it was,
 * which field and which rule.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { buildAndPublish } from "../../pipeline/build/build-and-publish.js";
import { inputOf, settleImport } from "../../pipeline/import/import-and-publish.js";
import { importRecords } from "../../pipeline/import/import-records.js";
import { ImportStaging } from "../../pipeline/state/import-staging.js";
import { UPSERT_VIDEO_SQL } from "../../pipeline/state/state-writes.js";
import { PipelineState } from "../../pipeline/state/open-state.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { makeVideo } from "../helpers/records.js";
import { REPO_ROOT, startChild } from "../reliability/helpers/child.js";

const work = mkdtempSync(join(tmpdir(), "import-all-or-nothing-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let dirs = 0;
const newDir = (name: string) => join(work, `${name}-${++dirs}`);

const cli = (args: string[], dataDir: string) =>
  spawnSync(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], { cwd: REPO_ROOT, env: { ...process.env, DATA_DIR: dataDir }, encoding: "utf8" });

/** A valid record line of video `n`, with a word of its own to search for. */
const valid = (n: number) => JSON.stringify(makeVideo(n, { text: `the spoken words of video number ${n} about rivers` }));
/** A record that breaks the schema: viewCount as a string. */
const invalid = (n: number) => JSON.stringify({ ...makeVideo(n, { text: "broken record" }), viewCount: "many" });
const MALFORMED = '{"videoId": "not json';

function writeInput(lines: string[]): string {
  const path = join(work, `input-${++dirs}.jsonl`);
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

/** The build `current` points at, if any. */
function currentBuild(dataDir: string): string | undefined {
  try {
    return basename(readlinkSync(dataDirLayout(dataDir).current));
  } catch {
    return undefined;
  }
}

/** Video ids of the set `current` serves. */
function servedIds(dataDir: string): string[] {
  const db = new Database(join(dataDirLayout(dataDir).current, ARTIFACT_FILES.database), { readonly: true });
  try {
    return (db.prepare("SELECT video_id FROM videos ORDER BY video_id").pluck().all() as string[]);
  } finally {
    db.close();
  }
}

/** Video ids of the records the next build would hold, after settling what a killed import left (as every command does first). */
async function stateIds(dataDir: string): Promise<string[]> {
  const state = PipelineState.open(dataDirLayout(dataDir).state);
  try {
    await settleImport(state, dataDir);
    return [...state.records()].map((r) => r.videoId).sort();
  } finally {
    state.close();
  }
}

const ids = (ns: Iterable<number>) => [...ns].map((n) => makeVideo(n).videoId).sort();

describe("an import that fails part way", () => {
  it("a stop in the middle of the build leaves the state as it was: the next build publishes only what was there", async () => {
    const dataDir = newDir("stop");
    const base = cli(["build", "--input", writeInput([1, 2, 3].map(valid))], dataDir);
    expect(base.status, base.stderr).toBe(EXIT.ok);
    const before = currentBuild(dataDir);
    // Many records, so the import and build take long enough to be stopped in the middle.
    const big = writeInput(Array.from({ length: 3000 }, (_, i) => valid(100 + i)));
    const child = startChild("pipeline/cli.ts", ["build", "--input", big], { DATA_DIR: dataDir });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (/imported|database:|stage/i.test(child.stdout() + child.stderr())) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    child.process.kill("SIGTERM");
    const exit = await child.exited;
    expect(exit.code, child.stdout() + child.stderr()).toBe(EXIT.interrupted);
    expect(currentBuild(dataDir)).toBe(before);
    expect(await stateIds(dataDir)).toEqual(ids([1, 2, 3]));
    const next = cli(["build"], dataDir);
    expect(next.status, next.stderr).toBe(EXIT.ok);
    expect(servedIds(dataDir)).toEqual(ids([1, 2, 3]));
  });

  it("skips a line that is not JSON and an invalid record, naming the line, the field and the rule, and imports the rest", () => {
    const dataDir = newDir("mixed");
    const lines = [...Array.from({ length: 600 }, (_, i) => valid(1000 + i)), MALFORMED, ...Array.from({ length: 5 }, (_, i) => invalid(2000 + i))];
    const input = writeInput(lines);
    const built = cli(["build", "--input", input], dataDir);
    expect(built.status, built.stderr).toBe(EXIT.ok);
    const said = built.stdout + built.stderr;
    expect(said).toContain(`skipped ${input}:601: not a JSON value`);
    expect(said).toContain(`skipped ${input}:602: viewCount: `);
    // The first few of one kind each on a line, then how many more.
    expect(said.match(/skipped .*: viewCount: /g)).toHaveLength(3);
    expect(said).toMatch(/skipped 2 more records for viewCount: .* \(5 in all\)/);
    expect(said).toContain("imported 600 records (6 skipped)");
    expect(servedIds(dataDir)).toEqual(ids(Array.from({ length: 600 }, (_, i) => 1000 + i)));
  });
});

describe("an input with nothing valid", () => {
  it.each([
    ["all invalid", () => writeInput([invalid(1), invalid(2), MALFORMED])],
    ["empty", () => writeInput([])],
    ["/dev/null", () => "/dev/null"],
  ])("%s: exits 1 and publishes nothing", (_name, input) => {
    const dataDir = newDir("nothing");
    const base = cli(["build", "--input", writeInput([valid(7)])], dataDir);
    expect(base.status, base.stderr).toBe(EXIT.ok);
    const before = currentBuild(dataDir);
    const result = cli(["build", "--input", input()], dataDir);
    expect(result.status, result.stdout + result.stderr).toBe(EXIT.failed);
    expect(result.stderr).toMatch(/no valid record in the input \(\d+ skipped\): nothing was imported or published/);
    expect(currentBuild(dataDir)).toBe(before);
  });

  it("a missing input is named in one line, exit 2, before anything is locked or written", () => {
    const dataDir = newDir("missing");
    const result = cli(["build", "--input", join(work, "no-such.jsonl")], dataDir);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr.trim()).toBe(`build: --input ${join(work, "no-such.jsonl")}: no such file or folder`);
    expect(() => statSync(dataDir)).toThrow();
  });
});

describe("an export folder as input", () => {
  it("is refused when a shard does not match the manifest, naming it, and nothing is published", () => {
    const source = newDir("source");
    expect(cli(["build", "--input", writeInput([1, 2, 3, 4].map(valid))], source).status).toBe(EXIT.ok);
    const exported = newDir("export");
    const made = cli(["export", "--format", "jsonl", "--out", exported], source);
    expect(made.status, made.stderr).toBe(EXIT.ok);
    const manifest = JSON.parse(readFileSync(join(exported, "manifest.json"), "utf8")) as { tables: { videos: string[] } };
    const shard = manifest.tables.videos[0]!;
    const text = gunzipSync(readFileSync(join(exported, shard))).toString("utf8");
    writeFileSync(join(exported, shard), gzipSync(text.replace("Lecture number 2", "TAMPERED TITLE")));

    const target = newDir("target");
    expect(cli(["build", "--input", writeInput([valid(9)])], target).status).toBe(EXIT.ok);
    const before = currentBuild(target);
    const result = cli(["build", "--input", exported], target);
    expect(result.status).toBe(EXIT.failed);
    expect(result.stderr).toContain(`${exported} does not match its manifest, so nothing was imported`);
    expect(result.stderr).toContain(`${shard}: `);
    expect(currentBuild(target)).toBe(before);
    expect(servedIds(target)).toEqual(ids([9]));
  });

  it("a Parquet shard whose segments are not a list skips those videos, naming the shard, the row and the column", () => {
    const source = newDir("source");
    expect(cli(["build", "--input", writeInput([1, 2].map(valid))], source).status).toBe(EXIT.ok);
    const exported = newDir("export");
    const made = cli(["export", "--format", "parquet", "--out", exported], source);
    expect(made.status, made.stderr).toBe(EXIT.ok);
    const manifestPath = join(exported, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { tables: { transcripts: string[] }; files: Record<string, { bytes: number; sha256: string }> };
    const shard = manifest.tables.transcripts[0]!;
    const path = join(exported, shard);
    // Rewritten by DuckDB with segments as text, and the manifest made to match: the file is "whole", its column wrong.
    const rewrite = `COPY (SELECT * REPLACE (CAST(segments AS VARCHAR) AS segments) FROM read_parquet('${path}')) TO '${path}.new' (FORMAT parquet)`;
    execFileSync(process.execPath, ["-e", `
      const { DuckDBInstance } = await import("@duckdb/node-api");
      const db = await DuckDBInstance.create(":memory:");
      const c = await db.connect();
      await c.run(${JSON.stringify(rewrite)});
    `, "--input-type=module"], { cwd: REPO_ROOT });
    execFileSync("mv", [`${path}.new`, path]);
    const bytes = readFileSync(path);
    manifest.files[shard] = { ...manifest.files[shard]!, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
    writeFileSync(manifestPath, JSON.stringify(manifest));

    const target = newDir("target");
    const result = cli(["build", "--input", exported], target);
    expect(result.status, result.stdout + result.stderr).toBe(EXIT.failed);
    expect(result.stdout + result.stderr).toContain(`skipped ${shard} row 1: segments: expected a list, got string`);
    expect(result.stderr).toMatch(/no valid record in the input \(2 skipped\)/);
    expect(currentBuild(target)).toBeUndefined();
  });
});

describe("an import killed between the publish and the fold", () => {
  /** Staging whose fold never happens, as when the process is killed just after `current` moved. */
  class KilledAfterSwap extends ImportStaging {
    override commit(): void {
      throw new Error("killed after the swap");
    }
  }

  async function killedImport(dataDir: string, ns: number[]): Promise<string> {
    const state = PipelineState.open(dataDirLayout(dataDir).state);
    try {
      const staging = new KilledAfterSwap(state);
      await importRecords(staging, inputOf(ns.map((n) => makeVideo(n, { text: `late words ${n}` }))));
      await expect(buildAndPublish({ dataDir, state, log: () => {}, staging })).rejects.toThrow("killed after the swap");
    } finally {
      state.close();
    }
    return currentBuild(dataDir)!;
  }

  it("is folded in by the next command, and an install-set first keeps it too", async () => {
    const dataDir = newDir("swap");
    expect(cli(["build", "--input", writeInput([1, 2, 3].map(valid))], dataDir).status).toBe(EXIT.ok);
    const base = currentBuild(dataDir)!;
    const published = await killedImport(dataDir, [7, 8]);
    expect(published).not.toBe(base);
    expect(servedIds(dataDir)).toEqual(ids([1, 2, 3, 7, 8]));
    // Another set installed before anything settles the import: the records it published stay in the state.
    const copy = join(newDir("ship"), base);
    cpSync(join(dataDirLayout(dataDir).builds, base), copy, { recursive: true });
    const installed = cli(["install-set", copy, "--force"], dataDir);
    expect(installed.status, installed.stderr).toBe(EXIT.ok);
    expect(installed.stderr).toContain(`folded the records of an import published as ${published}`);
    expect(await stateIds(dataDir)).toEqual(ids([1, 2, 3, 7, 8]));
    const rebuilt = cli(["build"], dataDir);
    expect(rebuilt.status, rebuilt.stderr).toBe(EXIT.ok);
    expect(servedIds(dataDir)).toEqual(ids([1, 2, 3, 7, 8]));
  });
});

describe("the set built with a staged import", () => {
  it("holds the records folding gives, in the order folding gives them", async () => {
    const dir = newDir("order");
    const state = PipelineState.open(join(dir, "state.db"));
    try {
      // Videos 1 and 3 crawled but not fetched (before 4 was fetched), so they come first in the state's order.
      const upsert = state.db.prepare(UPSERT_VIDEO_SQL);
      for (const n of [1, 3]) {
        const v = makeVideo(n);
        upsert.run({ videoId: v.videoId, channelId: v.channelId, title: "old title", viewCount: 5, publishedAt: null, approx: 1, now: "2020-01-01T00:00:00.000Z" });
      }
      state.absorb([{ record: makeVideo(4, { text: "fetched before" }), fetchedAt: "2021-01-01T00:00:00.000Z" }]);
      const staging = new ImportStaging(state);
      staging.stage([3, 1, 5, 4].map((n) => ({ record: makeVideo(n, { text: `imported ${n}`, channelTitle: "Renamed" }), fetchedAt: "2022-01-01T00:00:00.000Z" })));
      const view = [...staging.records()];
      staging.commit();
      expect(view).toEqual([...state.records()]);
      expect(view.map((r) => r.videoId)).toEqual([1, 3, 4, 5].map((n) => makeVideo(n).videoId));
    } finally {
      state.close();
    }
  });
});

describe("the fold of a staged import", () => {
  it("cut short after a batch goes on from where it was: each record folded once", () => {
    const dir = newDir("fold");
    const state = PipelineState.open(join(dir, "state.db"));
    try {
      const staging = new ImportStaging(state);
      const ns = Array.from({ length: 1200 }, (_, i) => 5000 + i);
      staging.stage(ns.map((n) => ({ record: makeVideo(n, { text: `folded ${n}` }), fetchedAt: "2022-01-01T00:00:00.000Z" })));
      const absorb = state.absorb.bind(state);
      let calls = 0;
      // Killed just after the first batch's transaction committed.
      state.absorb = (records, withEachBatch) => {
        const folded = absorb(records, withEachBatch);
        if (++calls === 1) throw new Error("killed after the first batch");
        return folded;
      };
      expect(() => staging.commit()).toThrow("killed after the first batch");
      // The first batch is in the state and out of the staging; the rest still waits.
      expect(state.recordCount() + staging.count()).toBe(ns.length);
      state.absorb = absorb;
      staging.commit();
      expect(staging.count()).toBe(0);
      expect(state.db.prepare("SELECT DISTINCT attempts FROM videos").pluck().all()).toEqual([1]);
      expect([...state.records()].map((r) => r.videoId).sort()).toEqual(ids(ns));
    } finally {
      state.close();
    }
  });
});

describe("an input that cannot be read to its end", () => {
  it("a truncated .gz is named with how far it got, exit 1, nothing published", () => {
    const dataDir = newDir("gz");
    const path = join(work, "cut.jsonl.gz");
    const whole = gzipSync(Array.from({ length: 200 }, (_, i) => valid(300 + i)).join("\n"));
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length / 2)));
    const result = cli(["build", "--input", path], dataDir);
    expect(result.status, result.stderr).toBe(EXIT.failed);
    expect(result.stderr).toMatch(new RegExp(`${path.replaceAll(".", "\\.")}: cannot be read past line \\d+: `));
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(currentBuild(dataDir)).toBeUndefined();
  });
});

/**
 * The model: imports of random mixes of valid, invalid and malformed lines,
 * each left to finish, stopped with SIGTERM or killed with -9 after a random
 * time. After each, the records the next build holds, and the set served,
 * are the valid records of the imports that were published; an import
 * counts as published when `current` moved to its set.
 */
describe("the import, against a model", () => {
  it("publishes exactly the valid records of the completed imports, whatever is killed when", async () => {
    type Line = "valid" | "invalid" | "malformed";
    const importArb = fc.record({
      lines: fc.array(fc.constantFrom<Line>("valid", "valid", "valid", "invalid", "malformed"), { minLength: 1, maxLength: 40 }),
      end: fc.constantFrom("finish", "finish", "SIGTERM", "SIGKILL"),
      afterMs: fc.integer({ min: 0, max: 2500 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(importArb, { minLength: 2, maxLength: 4 }), async (imports) => {
        const dataDir = newDir("model");
        const published = new Set<number>();
        let next = 1;
        for (const step of imports) {
          const validHere: number[] = [];
          const lines = step.lines.map((kind) => {
            const n = next++;
            if (kind === "valid") validHere.push(n);
            return kind === "valid" ? valid(n) : kind === "invalid" ? invalid(n) : MALFORMED;
          });
          const before = currentBuild(dataDir);
          const child = startChild("pipeline/cli.ts", ["build", "--input", writeInput(lines)], { DATA_DIR: dataDir });
          if (step.end !== "finish") {
            await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, step.afterMs))]);
            child.process.kill(step.end as NodeJS.Signals);
          }
          const exit = await child.exited;
          const after = currentBuild(dataDir);
          if (exit.code === EXIT.ok) expect(validHere.length).toBeGreaterThan(0);
          if (exit.code === EXIT.failed) expect(validHere, child.stderr()).toEqual([]);
          // Published when `current` moved: an exit 0, or a kill after the swap.
          if (after !== before) for (const n of validHere) published.add(n);
          else expect(exit.code, child.stdout() + child.stderr()).not.toBe(EXIT.ok);
          expect(await stateIds(dataDir)).toEqual(ids(published));
          if (after !== undefined) expect(servedIds(dataDir)).toEqual(ids(published));
        }
        if (published.size > 0) {
          const rebuilt = cli(["build"], dataDir);
          expect(rebuilt.status, rebuilt.stderr).toBe(EXIT.ok);
          expect(servedIds(dataDir)).toEqual(ids(published));
        }
        rmSync(dataDir, { recursive: true, force: true });
      }),
      { numRuns: 4, seed: 54 },
    );
  }, 600_000);
});
