/**
 * A run that finds nothing new since the set it last published skips the
 * build and publish, says so, and exits 0; new transcripts, live-fetched
 * records or --force build again. Against the loopback YouTube stand-in.
 */
import { spawn } from "node:child_process";
import { readdirSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { readManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { LiveStore } from "../../server/live-store/live-store.js";
import { makeVideo } from "../helpers/records.js";
import { bufferedProgress, run, tempDataDir } from "./helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "./helpers/synthetic-standin.js";

let world: SyntheticStandin;
let data: ReturnType<typeof tempDataDir>;
let channels: string;

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 80, channels: 3 });
  data = tempDataDir();
  channels = writeChannelList(join(data.dir, "channels.txt"), world.corpus);
});
afterAll(async () => {
  await world.close();
  data.cleanup();
});

const current = () => realpathSync(dataDirLayout(data.dir).current);
const builds = () => readdirSync(dataDirLayout(data.dir).builds).filter((name) => !name.startsWith("."));
const runAgain = (extra: Partial<Parameters<typeof run>[0]> = {}) => {
  const progress = bufferedProgress();
  return run({ dataDir: data.dir, channelsFile: channels, origin: world.standin.origin, recrawlAfterMs: 0, timeoutMs: 30_000, concurrency: 4, progress: progress.progress, ...extra }).then((summary) => ({
    summary,
    log: progress.text(),
  }));
};

describe("a run with nothing new", () => {
  it("builds when transcripts are new, then skips build and publish when nothing is, saying so", async () => {
    const first = await runAgain({ limit: 30 });
    expect(first.summary.exitCode, JSON.stringify({ ...first.summary, log: first.log })).toBe(EXIT.ok);
    expect(first.summary.build).not.toBeNull();
    const firstSet = current();

    // More transcripts fetched: new, so built and published.
    const second = await runAgain();
    expect(second.summary.transcripts.fetched).toBeGreaterThan(0);
    expect(second.summary.build?.dir).toBe(current());
    expect(current()).not.toBe(firstSet);
    const published = current();
    const buildsBefore = builds();

    // Crawled again, nothing fetched: skipped.
    const third = await runAgain();
    expect(third.summary.videos).toMatchObject({ new: 0 });
    expect(third.summary.transcripts.fetched).toBe(0);
    expect(third.summary.exitCode).toBe(EXIT.ok);
    expect(third.summary.outcome).toBe("ok");
    expect(third.summary.build).toBeNull();
    expect(third.summary.unchangedSince).toBe(basename(published));
    expect(current()).toBe(published);
    expect(builds()).toEqual(buildsBefore);
    const said = third.log.split("\n").filter((line) => line.includes("nothing new"));
    expect(said).toEqual([
      `[pipeline] nothing new since the published set ${basename(published)} (no new or changed transcripts, no live-fetched records): build and publish skipped; --force rebuilds`,
    ]);
    expect(third.log).not.toContain("building the artifact set");

    // Permanent failures tried again and failing again write no record: still nothing new.
    const retried = await runAgain({ retryPermanentAfterMs: 0 });
    expect(retried.summary.transcripts.attempted).toBeGreaterThan(0);
    expect(retried.summary.unchangedSince).toBe(basename(published));
    expect(current()).toBe(published);
  });

  it("builds again with --force", async () => {
    const before = current();
    const forced = await runAgain({ force: true });
    expect(forced.summary.unchangedSince).toBeUndefined();
    expect(forced.summary.build?.dir).toBe(current());
    expect(current()).not.toBe(before);
  });

  it("builds when the server fetched transcripts live, and not again once they are folded", async () => {
    const live = LiveStore.open(dataDirLayout(data.dir).liveStore);
    live.put(makeVideo(951, { text: "a live fetched talk about beekeeping" }), { videoInArtifacts: false, artifactHasTranscript: false, channelInArtifacts: false });
    const maxSeq = live.maxSeq();
    live.close();
    const withLive = await runAgain();
    expect(withLive.summary.build).toMatchObject({ liveRecords: 1, liveSeq: maxSeq });
    expect(readManifest(current()).liveSeq).toBe(maxSeq);

    // The record is still in live.db (the server trims it later), but this set holds it.
    const after = await runAgain();
    expect(after.summary.unchangedSince).toBe(basename(current()));
    expect(after.summary.build).toBeNull();
  });

  it("builds when `current` is not the set this state published (pointed elsewhere by hand)", async () => {
    const builtSets = builds().sort();
    const older = join(dataDirLayout(data.dir).builds, builtSets[0]!);
    const { pointCurrentAt } = await import("../../pipeline/publish/publish.js");
    await pointCurrentAt(data.dir, older);
    expect(current()).toBe(realpathSync(older));
    const rebuilt = await runAgain();
    expect(rebuilt.summary.build).not.toBeNull();
  });

  it("the CLI prints the line on stderr, the summary on stdout, and exits 0", async () => {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", "pipeline/cli.ts", "run", "--channels", channels, "--origin", world.standin.origin, "--recrawl-after", "0"], {
        cwd: join(import.meta.dirname, "..", ".."),
        env: { ...process.env, DATA_DIR: data.dir },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n").filter((line) => line.includes("nothing new since the published set"))).toHaveLength(1);
    expect(result.stdout).toMatch(/^pipeline run ok \(exit 0\)/);
    expect(result.stdout).toContain(`published:   nothing new; ${basename(current())} stays published (--force rebuilds)`);
  });
});
