/**
 * The live store's life as an operator sees it: a server fetching live, the
 * pipeline publishing on its schedule, restarts. Every transcript answered as
 * stored stays stored (served `cached: true`, counted by /v1/stats) across
 * publishes and restarts, and is never fetched from YouTube twice.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { ensureDemoArtifacts } from "../../pipeline/corpus/demo-set.js";
import { acquireLock } from "../../pipeline/state/acquire-lock.js";
import { buildAndPublish } from "../../pipeline/build/build-and-publish.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { importAndPublish, inputOf } from "../../pipeline/import/import-and-publish.js";
import { PipelineState } from "../../pipeline/state/open-state.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { artifactRecords, fresh, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "../live/helpers/live-server.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

const REPO = join(import.meta.dirname, "..", "..");

let standin: Standin;
let dataDir: string;
let server: LiveServer | undefined;

beforeAll(async () => {
  standin = await startStandin({ corpus: upstreamCorpus() });
});
afterAll(async () => {
  await standin.close();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

/** A DATA_DIR whose served set was built by the pipeline from its state (the artifact records imported). */
async function pipelineDataDir(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "lifecycle-"));
  const state = PipelineState.open(join(dir, "pipeline", "state.db"));
  try {
    await importAndPublish({ dataDir: dir, state, log: () => {}, input: inputOf(artifactRecords()) });
  } finally {
    state.close();
  }
  return dir;
}

/** What the pipeline does at the end of a run: fold the live store into the state, build, publish. */
async function publish(): Promise<void> {
  const state = PipelineState.open(join(dataDir, "pipeline", "state.db"));
  try {
    await buildAndPublish({ dataDir, state, log: () => {} });
  } finally {
    state.close();
  }
}

async function start(): Promise<LiveServer> {
  // A generous upstream limit: these tests are about storage, not about a slow machine's timeouts.
  server = await startLiveServer({ dataDir, standin, runtime: { watch: false, pollMs: 0 }, env: { YOUTUBE_TIMEOUT_MS: "30000" } });
  return server;
}

async function restart(): Promise<LiveServer> {
  await server?.close();
  return start();
}

async function getTranscript(videoId: string): Promise<{ status: number; cached?: boolean }> {
  const res = await fetch(`${server!.baseUrl}/v1/transcript/${videoId}`, { headers: { "X-API-Key": server!.key } });
  const body = (await res.json()) as { cached?: boolean };
  return { status: res.status, cached: body.cached };
}

async function transcripts(): Promise<number> {
  const res = await fetch(`${server!.baseUrl}/v1/stats`, { headers: { "X-API-Key": server!.key } });
  return ((await res.json()) as { transcripts: number }).transcripts;
}

const playerCalls = (videoId: string): number => standin.stats.byVideo[videoId]?.player ?? 0;

describe("a transcript fetched live", () => {
  it("is in every later build, not only the next one", async () => {
    dataDir = await pipelineDataDir();
    await start();
    const base = await transcripts();
    const id = fresh(1).videoId;
    expect(await getTranscript(id)).toEqual({ status: 200, cached: false });
    for (const round of [1, 2, 3]) {
      await publish();
      expect(await server!.runtime.reload("sighup", true), `publish ${round}`).toBe("switched");
      expect(await getTranscript(id), `after publish ${round}`).toEqual({ status: 200, cached: true });
      expect(await transcripts(), `after publish ${round}`).toBe(base + 1);
    }
    // After three publishes every kept set holds it: it has left the live store and is served from the set.
    expect([...server!.runtime.live.records()].map((r) => r.videoId)).toEqual([]);
    expect(readManifest(dataDirLayout(dataDir).current).counts.transcripts).toBe(base + 1);
    expect(playerCalls(id)).toBe(1);
  });

  it("survives a restart after a publish emptied the live store: sequence numbers are not reused", async () => {
    dataDir = await pipelineDataDir();
    await start();
    const first = [fresh(2).videoId, fresh(3).videoId];
    for (const id of first) expect(await getTranscript(id)).toEqual({ status: 200, cached: false });
    await publish();
    await publish();
    expect(await server!.runtime.reload("sighup", true)).toBe("switched");
    expect(readManifest(dataDirLayout(dataDir).current).liveSeq).toBe(2);
    expect([...server!.runtime.live.records()]).toEqual([]);
    const later = fresh(4).videoId;
    expect(await getTranscript(later)).toEqual({ status: 200, cached: false });
    const counted = await transcripts();
    await restart();
    expect(await getTranscript(later)).toEqual({ status: 200, cached: true });
    expect(await transcripts()).toBe(counted);
    for (const id of [...first, later]) expect(playerCalls(id), id).toBe(1);
  });
});

describe("build --input", () => {
  // Not spawnSync: the server runs in this process, and a blocked event loop lets its keep-alive
  // timer and the client's fire late and race, resetting the next request's connection.
  const cli = (args: string[]): Promise<{ status: number | null; stderr: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], { cwd: REPO, env: { ...process.env, DATA_DIR: dataDir } }, (error, _stdout, stderr) => {
        resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stderr });
      });
    });

  it("keeps everything served: `build` without input rebuilds the state and the live store, a set that drops most of the served one is refused", async () => {
    dataDir = await pipelineDataDir();
    await start();
    const id = fresh(5).videoId;
    expect(await getTranscript(id)).toEqual({ status: 200, cached: false });
    const served = await transcripts();

    const rebuilt = await cli(["build"]);
    expect(rebuilt.status, rebuilt.stderr).toBe(EXIT.ok);
    expect(await server!.runtime.reload("sighup", true)).toBe("switched");
    expect(await transcripts()).toBe(served);
    expect(await getTranscript(id)).toEqual({ status: 200, cached: true });

    // The state lost (an operator's mistake): the next set would hold the live store's records only.
    const before = realpathSync(dataDirLayout(dataDir).current);
    rmSync(join(dataDir, "pipeline"), { recursive: true, force: true });
    const refused = await cli(["build"]);
    expect(refused.status).toBe(EXIT.refused);
    // Only the live-fetched transcript is left to build: 1 of the served 3.
    expect(refused.stderr).toMatch(
      /refusing to publish: the new set has 1 transcripts \(1 videos\), the served set \(dataset custom, built .+\) has 3 \(4 videos\); publishing would drop 2 transcripts \(67%\)\. Nothing was published\. Run again with --force/,
    );
    expect(realpathSync(dataDirLayout(dataDir).current)).toBe(before);
    expect(readdirSync(join(dataDir, "builds")).filter((name) => !name.startsWith(".")).length).toBe(2);

    const forced = await cli(["build", "--force"]);
    expect(forced.status, forced.stderr).toBe(EXIT.ok);
    expect(realpathSync(dataDirLayout(dataDir).current)).not.toBe(before);
  });

  it("waits its turn: refused with exit 3 while a run holds the lock", async () => {
    dataDir = await pipelineDataDir();
    const before = realpathSync(dataDirLayout(dataDir).current);
    const input = join(dataDir, "one.jsonl");
    writeFileSync(input, `${JSON.stringify(fresh(6))}\n`);
    const lock = acquireLock(join(dataDir, "pipeline", "run.lock"));
    try {
      const locked = await cli(["build", "--input", input]);
      expect(locked.status).toBe(EXIT.locked);
      expect(locked.stderr).toMatch(/Another pipeline run holds .*run\.lock \(pid \d+/);
      expect(realpathSync(dataDirLayout(dataDir).current)).toBe(before);
    } finally {
      lock.release();
    }
    const built = await cli(["build", "--input", input]);
    expect(built.status, built.stderr).toBe(EXIT.ok);
    expect(readManifest(dataDirLayout(dataDir).current).counts.transcripts).toBe(readManifest(before).counts.transcripts + 1);
  });
});

describe("the demo build", () => {
  it("takes the run lock like every publish: refused while a run holds it, nothing built", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "lifecycle-demo-"));
    const lock = acquireLock(join(dataDir, "pipeline", "run.lock"));
    try {
      await expect(ensureDemoArtifacts(dataDir)).rejects.toThrow(/Another pipeline run holds .*run\.lock \(pid \d+/);
      expect(existsSync(join(dataDir, "builds"))).toBe(false);
      expect(existsSync(dataDirLayout(dataDir).current)).toBe(false);
    } finally {
      lock.release();
    }
  });
});
