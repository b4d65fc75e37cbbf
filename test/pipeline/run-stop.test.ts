/**
 * Stopping `npm run pipeline -- run` during its build stage, as a scheduler
 * does: SIGTERM ends it within seconds as "interrupted" (exit 130) with
 * nothing published, no partial folder and the lock released; kill -9 leaves
 * a partial folder, which the next run removes. The state is seeded with a
 * backlog of records, so the build lasts long enough to be stopped in.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { PipelineState } from "../../pipeline/state/open-state.js";
import { RecordWriter } from "../../pipeline/state/record-writer.js";
import { currentBuildName, newBuildDir, publishBuild } from "../../pipeline/publish/publish.js";
import { makeVideo } from "../helpers/records.js";
import { startChild, until } from "../reliability/helpers/child.js";
import { tempDataDir } from "./helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "./helpers/synthetic-standin.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

const BACKLOG = 4000;
const WORDS = "river mill light leaf energy chapter lecture planet ocean forest mountain valley signal engine".split(" ");

let world: SyntheticStandin;
const dirs: ReturnType<typeof tempDataDir>[] = [];

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 4, channels: 1, seed: 5 });
});
afterAll(async () => {
  await world?.close();
  for (const d of dirs) d.cleanup();
});

/** BACKLOG records of 300 words each. */
function backlog() {
  return Array.from({ length: BACKLOG }, (_, i) => {
    const text = Array.from({ length: 300 }, (_, w) => WORDS[(i * 7 + w * ((i % 5) + 1)) % WORDS.length]).join(" ");
    return makeVideo(100_000 + i, { text });
  });
}

/** A DATA_DIR with a published set and a state holding BACKLOG fetched records. */
async function seededDataDir(): Promise<string> {
  const d = tempDataDir();
  dirs.push(d);
  const out = newBuildDir(d.dir);
  await buildArtifacts({ records: [makeVideo(1, { text: "the published set" })], outDir: out });
  await publishBuild(d.dir, out);
  const statePath = join(d.dir, "pipeline", "state.db");
  PipelineState.open(statePath).close();
  const writer = new RecordWriter(statePath);
  const at = new Date("2026-01-01T00:00:00Z");
  const records = backlog();
  await writer.saveVideos(
    records.map((r) => ({ videoId: r.videoId, channelId: r.channelId, title: r.title, viewCount: r.viewCount, publishedAt: r.publishedAt, approximate: false })),
    at,
  );
  await Promise.all(records.map((r) => writer.save(r, at)));
  await writer.close();
  return d.dir;
}

function runArgs(dataDir: string): string[] {
  const list = writeChannelList(join(dataDir, "channels.txt"), world.corpus);
  return ["run", "--channels", list, "--origin", world.standin.origin, "--retries", "0"];
}

const partials = (dataDir: string): string[] => readdirSync(dataDirLayout(dataDir).builds).filter((n) => n.includes(".partial-"));

describe("a pipeline run stopped during its build", () => {
  it("ends on SIGTERM within seconds as interrupted (130): nothing published, no partial folder, the lock released", async () => {
    const dataDir = await seededDataDir();
    const before = await currentBuildName(dataDir);
    const child = startChild("pipeline/cli.ts", runArgs(dataDir), { DATA_DIR: dataDir });
    await until(() => /staged \d+ records/.test(child.stderr()), 120_000, "the build to stage its records");
    expect(partials(dataDir)).toHaveLength(1);
    const sent = performance.now();
    child.process.kill("SIGTERM");
    const exit = await child.exited;
    const seconds = (performance.now() - sent) / 1000;
    expect(exit.code, child.stderr()).toBe(EXIT.interrupted);
    expect(seconds).toBeLessThan(5);
    expect(child.stdout()).toMatch(/pipeline run interrupted \(exit 130\)/);
    expect(child.stdout()).toContain("published:   nothing");
    expect(child.stderr()).not.toMatch(/database: statistics for the query planner/);
    expect(await currentBuildName(dataDir)).toBe(before);
    expect(partials(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, "pipeline", "run.lock"))).toBe(false);
  }, 180_000);

  it("leaves a partial folder when killed with -9, which the next run removes", async () => {
    const dataDir = await seededDataDir();
    const child = startChild("pipeline/cli.ts", runArgs(dataDir), { DATA_DIR: dataDir });
    await until(() => /staged \d+ records/.test(child.stderr()), 120_000, "the build to stage its records");
    child.process.kill("SIGKILL");
    expect((await child.exited).signal).toBe("SIGKILL");
    const left = partials(dataDir);
    expect(left).toHaveLength(1);
    expect(left[0]).toContain(`.partial-${child.process.pid}-`);

    const next = startChild("pipeline/cli.ts", runArgs(dataDir), { DATA_DIR: dataDir });
    const exit = await next.exited;
    expect(exit.code, next.stderr()).toBe(EXIT.ok);
    expect(partials(dataDir)).toEqual([]);
  }, 300_000);

  it("build --input ends on SIGTERM the same way: exit 130, nothing published, no partial folder, the lock released", async () => {
    const d = tempDataDir();
    dirs.push(d);
    const out = newBuildDir(d.dir);
    await buildArtifacts({ records: [makeVideo(1, { text: "the published set" })], outDir: out });
    await publishBuild(d.dir, out);
    const before = await currentBuildName(d.dir);
    const input = join(d.dir, "input.jsonl");
    writeFileSync(input, backlog().map((r) => JSON.stringify(r)).join("\n") + "\n");
    const child = startChild("pipeline/cli.ts", ["build", "--input", input], { DATA_DIR: d.dir });
    await until(() => /staged \d+ records/.test(child.stderr()), 120_000, "the build to stage its records");
    const sent = performance.now();
    child.process.kill("SIGTERM");
    const exit = await child.exited;
    expect(exit.code, child.stderr()).toBe(EXIT.interrupted);
    expect((performance.now() - sent) / 1000).toBeLessThan(5);
    expect(child.stderr()).toMatch(/The build was interrupted: interrupted by SIGTERM/);
    expect(await currentBuildName(d.dir)).toBe(before);
    expect(partials(d.dir)).toEqual([]);
    expect(existsSync(join(d.dir, "pipeline", "run.lock"))).toBe(false);
  }, 180_000);
});
