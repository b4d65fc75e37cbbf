/**
 * kill -9 of `npm run pipeline -- run` at random points (start-up, crawl,
 * fetch, build, publish) in five successive runs, then one run left to finish:
 * the state database and the published artifact set end up the same as after
 * one uninterrupted run. The kill schedule is seeded (KILL_SEED) and printed.
 */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { readManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { tempDataDir } from "../pipeline/helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "../pipeline/helpers/synthetic-standin.js";
import { seeded, startChild } from "./helpers/child.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

let world: SyntheticStandin;
const dirs: ReturnType<typeof tempDataDir>[] = [];

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 30, channels: 2, seed: 11 });
});
afterAll(async () => {
  await world?.close();
  for (const d of dirs) d.cleanup();
});

function newDataDir(): string {
  const d = tempDataDir();
  dirs.push(d);
  return d.dir;
}

function runArgs(dataDir: string): string[] {
  const list = writeChannelList(join(dataDir, "channels.txt"), world.corpus);
  return ["run", "--channels", list, "--origin", world.standin.origin, "--concurrency", "8", "--retries", "0", "--recrawl-after", "0"];
}

function integrity(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma("integrity_check", { simple: true }) as string;
  } finally {
    db.close();
  }
}

/** What the dataset is: every fetched record's content (not its fetch time), video statuses, and the published counts. */
function datasetOf(dataDir: string) {
  const stateFile = join(dataDir, "pipeline", "state.db");
  expect(integrity(stateFile)).toBe("ok");
  const db = new Database(stateFile, { readonly: true });
  let records: Record<string, string>;
  let statuses: Record<string, string>;
  try {
    const rows = db.prepare("SELECT video_id, record FROM records ORDER BY video_id").all() as { video_id: string; record: Buffer }[];
    records = Object.fromEntries(
      rows.map((r) => {
        const { videoId, channelId, title, transcripts } = JSON.parse(inflateRawSync(r.record).toString("utf8"));
        return [r.video_id, createHash("sha256").update(JSON.stringify({ videoId, channelId, title, transcripts })).digest("hex")];
      }),
    );
    const videoRows = db.prepare("SELECT video_id, status FROM videos ORDER BY video_id").all() as { video_id: string; status: string }[];
    statuses = Object.fromEntries(videoRows.map((r) => [r.video_id, r.status]));
  } finally {
    db.close();
  }
  const current = dataDirLayout(dataDir).current;
  expect(integrity(join(current, ARTIFACT_FILES.database))).toBe("ok");
  const manifest = readManifest(current);
  return { records, statuses, counts: manifest.counts };
}

describe("kill -9 of the pipeline", () => {
  test("five runs killed at random points, then one to the end, give the dataset of one uninterrupted run", async () => {
    const referenceDir = newDataDir();
    const started = performance.now();
    const reference = startChild("pipeline/cli.ts", runArgs(referenceDir), { DATA_DIR: referenceDir });
    const refExit = await reference.exited;
    const fullMs = performance.now() - started;
    expect(refExit.code, reference.stderr()).toBe(0);
    const expected = datasetOf(referenceDir);
    expect(Object.keys(expected.records).length).toBeGreaterThan(15);

    const seed = Number(process.env.KILL_SEED ?? Date.now() % 100_000);
    const random = seeded(seed);
    const dataDir = newDataDir();
    const schedule: string[] = [];
    for (let i = 0; i < 5; i++) {
      // Anywhere from start-up to the very end of a full run (build and publish included).
      const killAt = Math.round(150 + random() * fullMs * 0.95);
      const child = startChild("pipeline/cli.ts", runArgs(dataDir), { DATA_DIR: dataDir });
      const timer = setTimeout(() => child.process.kill("SIGKILL"), killAt);
      const exit = await child.exited;
      clearTimeout(timer);
      schedule.push(`${killAt} ms → ${exit.signal ?? `exit ${exit.code}`}`);
      // A run that beat its kill must still have succeeded.
      if (exit.signal === null) expect(exit.code, child.stderr()).toBe(0);
    }
    console.log(`pipeline kill -9: seed ${seed}, full run ${Math.round(fullMs)} ms; runs: ${schedule.join("; ")}`);

    const last = startChild("pipeline/cli.ts", runArgs(dataDir), { DATA_DIR: dataDir });
    const lastExit = await last.exited;
    expect(lastExit.code, last.stderr()).toBe(0);
    expect(existsSync(join(dataDir, "pipeline", "run.lock"))).toBe(false);
    const actual = datasetOf(dataDir);
    expect(actual.records).toEqual(expected.records);
    expect(actual.statuses).toEqual(expected.statuses);
    expect(actual.counts).toEqual(expected.counts);
  }, 300_000); // seven child processes, each a full node start-up, on a shared machine
});
