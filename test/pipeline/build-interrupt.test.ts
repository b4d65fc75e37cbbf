/**
 * Stopping a build: buildArtifacts aborted at several points removes its
 * partial folder, writes nothing to its output and throws BuildInterrupted;
 * the partial folders of dead processes are removed, a live one's are kept.
 */
import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildArtifacts, BuildInterrupted } from "../../pipeline/build/build-artifacts.js";
import { mergeInSteps, prepareBulkLoad } from "../../pipeline/build/fts-bulk-load.js";
import { ARTIFACT_FILES, type VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { partialOwner, removeAbandonedPartials } from "../../pipeline/publish/publish.js";
import { makeVideo } from "../helpers/records.js";

const WORDS = "river mill light leaf energy chapter lecture planet ocean forest mountain valley signal engine".split(" ");
/** Enough videos for several chunks of every chunked step (2,000 videos a chunk, 500 records a staging batch). */
const VIDEOS = 4500;

function recordAt(n: number): VideoRecord {
  const text = Array.from({ length: 60 }, (_, i) => WORDS[(n * 7 + i * (n % 5 + 1)) % WORDS.length]).join(" ");
  return makeVideo(n, { text, channelId: `UC${String(n % 40).padStart(22, "c")}`, channelTitle: `Channel ${n % 40}` });
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function newRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "build-stop-"));
  roots.push(root);
  return root;
}

/** Builds into a fresh folder, aborting when `abortOn` says so; returns the error and what is left beside the output. */
async function buildAborted(abortOn: (message: string) => boolean): Promise<{ error: unknown; left: string[]; stepsAfterAbort: string[] }> {
  const root = newRoot();
  const controller = new AbortController();
  const stepsAfterAbort: string[] = [];
  const error = await buildArtifacts({
    records: (function* () {
      for (let n = 1; n <= VIDEOS; n++) yield recordAt(n);
    })(),
    outDir: join(root, "set"),
    signal: controller.signal,
    log: (message) => {
      if (controller.signal.aborted) stepsAfterAbort.push(message);
      else if (abortOn(message)) controller.abort(new Error("test abort"));
    },
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, left: readdirSync(root), stepsAfterAbort };
}

describe("an aborted build", () => {
  it.each([
    ["after staging", (m: string) => m.startsWith("staged ")],
    ["after the tables are copied", (m: string) => m.startsWith("database: tables in popularity order")],
    ["while the indexes are built, from the worker's first step", (m: string) => m.startsWith("database: transcript index, on a second thread")],
    ["after the indexes are copied in", (m: string) => m.startsWith("database: indexes copied")],
    ["after the title index", (m: string) => m === "title index written"],
  ])("stopped %s throws BuildInterrupted and leaves nothing", async (_when, abortOn) => {
    const { error, left, stepsAfterAbort } = await buildAborted(abortOn);
    expect(error).toBeInstanceOf(BuildInterrupted);
    expect((error as Error).message).toContain("test abort");
    expect(left).toEqual([]);
    // Stopped at the next check: no later step of the database was logged as done.
    expect(stepsAfterAbort.filter((m) => m.startsWith("database: statistics"))).toEqual([]);
  }, 120_000);

  it("stops while it stages records from a synchronous source: the signal handler runs between batches", async () => {
    const root = newRoot();
    const controller = new AbortController();
    let pulled = 0;
    // A timer: it can only fire if staging lets the event loop run.
    setTimeout(() => controller.abort(new Error("timer abort")), 0);
    const error = await buildArtifacts({
      records: (function* () {
        for (let n = 1; n <= VIDEOS; n++) {
          pulled++;
          yield recordAt(n);
        }
      })(),
      outDir: join(root, "set"),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildInterrupted);
    expect(pulled).toBeLessThan(VIDEOS);
    expect(readdirSync(root)).toEqual([]);
  }, 60_000);

  it("does not start when its signal is already aborted", async () => {
    const root = newRoot();
    const error = await buildArtifacts({ records: [recordAt(1)], outDir: join(root, "set"), signal: AbortSignal.abort(new Error("early")) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildInterrupted);
    expect(readdirSync(root)).toEqual([]);
  });
});

describe("abandoned partial build folders", () => {
  it("are removed when their process is dead, kept while it lives; other folders are not touched", async () => {
    const builds = newRoot();
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const abandoned = `.20260101T000000000Z-aaaaaa.partial-${dead}-1767225600000`;
    const live = `.20260101T000000001Z-bbbbbb.partial-${process.pid}-1767225600001`;
    for (const name of [abandoned, live, "20260101T000000002Z-cccccc"]) {
      mkdirSync(join(builds, name));
      writeFileSync(join(builds, name, "artifacts.db"), "x");
    }
    expect(partialOwner(abandoned)).toBe(dead);
    expect(await removeAbandonedPartials(builds)).toEqual([abandoned]);
    expect(readdirSync(builds).sort()).toEqual([live, "20260101T000000002Z-cccccc"].sort());
    expect(existsSync(join(builds, live, "artifacts.db"))).toBe(true);
  });
});

describe("a build that is not stopped", () => {
  it("merges each full-text index into one segment, as 'optimize' did, in steps", async () => {
    const root = newRoot();
    await buildArtifacts({ records: Array.from({ length: VIDEOS }, (_, i) => recordAt(i + 1)), outDir: join(root, "set") });
    const db = new Database(join(root, "set", ARTIFACT_FILES.database), { readonly: true });
    try {
      for (const table of ["transcript_fts", "phrase_pairs"]) {
        expect(db.prepare(`SELECT count(DISTINCT segid) FROM ${table}_idx`).pluck().get(), table).toBe(1);
        expect(db.prepare(`SELECT count(*) FROM ${table}_docsize`).pluck().get(), table).toBe(VIDEOS);
      }
    } finally {
      db.close();
    }
  }, 120_000);
});

describe("merging a full-text index in steps", () => {
  it("leaves one segment, the same rows as 'optimize', however many steps it takes", async () => {
    const db = new Database(":memory:");
    try {
      for (const table of ["stepped", "optimized"]) {
        db.exec(`CREATE VIRTUAL TABLE ${table} USING fts5(text)`);
        prepareBulkLoad(db, table);
        // One segment per transaction: ten segments.
        for (let segment = 0; segment < 10; segment++) {
          db.transaction(() => {
            for (let n = 0; n < 300; n++) db.prepare(`INSERT INTO ${table} (text) VALUES (?)`).run(recordAt(segment * 300 + n).transcripts[0]!.segments.map((s) => s.text).join(" "));
          })();
        }
        expect(db.prepare(`SELECT count(DISTINCT segid) FROM ${table}_idx`).pluck().get()).toBe(10);
      }
      await mergeInSteps(db, "stepped", undefined, 4);
      db.exec("INSERT INTO optimized (optimized) VALUES ('optimize')");
      db.exec("CREATE VIRTUAL TABLE temp.sv USING fts5vocab(main, stepped, instance); CREATE VIRTUAL TABLE temp.ov USING fts5vocab(main, optimized, instance)");
      expect(db.prepare("SELECT count(DISTINCT segid) FROM stepped_idx").pluck().get()).toBe(1);
      expect(db.prepare("SELECT * FROM temp.sv").raw().all()).toEqual(db.prepare("SELECT * FROM temp.ov").raw().all());
    } finally {
      db.close();
    }
  });
});
