/**
 * A transcript larger than DuckDB's default largest JSON object (32 MB)
 * exports as Parquet and as JSON Lines, and `build --input` brings it back
 * whole from each: a set that serves it is exported as it serves it.
 */
import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { makeVideo } from "../helpers/records.js";
import { REPO_ROOT } from "../reliability/helpers/child.js";

const work = mkdtempSync(join(tmpdir(), "export-large-"));
const source = join(work, "source");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (args: string[], dataDir: string) =>
  spawnSync(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });

/** About 50 MB of caption text in 680,000 segments, each different. */
const SEGMENTS = Array.from({ length: 680_000 }, (_, i) => ({ start: i * 2, duration: 2, text: `segment ${i} of the very long recording goes on and on here for a while ${i % 97}` }));
const TEXT_BYTES = SEGMENTS.reduce((sum, s) => sum + s.text.length, 0);

/** The served set's script of the one video, and its segment count. */
function served(dataDir: string): { script: string; segments: number } {
  const db = new Database(join(dataDirLayout(dataDir).current, ARTIFACT_FILES.database), { readonly: true });
  try {
    const row = db.prepare("SELECT t.script AS script FROM videos v JOIN transcripts t ON t.id = v.transcript").get() as { script: string };
    return { script: row.script, segments: row.script.split("segment ").length - 1 };
  } finally {
    db.close();
  }
}

beforeAll(() => {
  expect(TEXT_BYTES).toBeGreaterThan(50_000_000);
  const input = join(work, "large.jsonl");
  writeFileSync(input, JSON.stringify(makeVideo(1, { transcripts: [{ language: "English", languageCode: "en", isGenerated: false, segments: SEGMENTS }] })) + "\n");
  const built = cli(["build", "--input", input], source);
  expect(built.status, built.stderr).toBe(EXIT.ok);
}, 600_000);

describe("a 50 MB transcript", () => {
  it.each(["parquet", "jsonl"])("exports as %s and builds back whole", (format) => {
    const out = join(work, `export-${format}`);
    const exported = cli(["export", "--format", format, "--out", out], source);
    expect(exported.status, exported.stderr).toBe(EXIT.ok);
    const target = join(work, `target-${format}`);
    const built = cli(["build", "--input", out], target);
    expect(built.status, built.stderr).toBe(EXIT.ok);
    expect(readlinkSync(dataDirLayout(target).current)).toMatch(/^builds\//);
    const back = served(target);
    expect(back.segments).toBe(SEGMENTS.length);
    expect(back.script).toBe(served(source).script);
  }, 600_000);
});
