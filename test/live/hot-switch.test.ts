/**
 * A running server moves to a newly published artifact set without a restart
 * and without failing a request: under continuous load, by fs.watch, by the
 * poll fallback and by SIGHUP; a set that fails to open is refused and the old
 * one keeps serving; the replaced set's files are released.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { newBuildDir, pointCurrentAt, publishBuild } from "../../pipeline/publish/publish.js";
import { reloadOnSighup } from "../../server/start/runtime.js";
import { call } from "../server/helpers/http.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";
import { artifactRecords, fresh, STORED } from "./helpers/live-corpus.js";
import { publishRecords, startLiveServer, type LiveServer } from "./helpers/live-server.js";
import { steadyLoad } from "./helpers/steady-load.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

function newVideo(i: number): VideoRecord {
  return makeVideo({
    videoId: `switch${String(i).padStart(5, "0")}`,
    title: `Published later ${i}`,
    transcripts: [transcript("en", "English", false, [`the narwhal${i} surfaces beside the ice floe`])],
  });
}

const servers: LiveServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(runtime: { watch: boolean; pollMs: number }): Promise<LiveServer> {
  const server = await startLiveServer({ runtime });
  servers.push(server);
  return server;
}

async function builtAt(server: LiveServer): Promise<string> {
  return (await call(server.baseUrl, "/healthz")).body.builtAt as string;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

/** Paths this process holds open or mapped under `dir`. */
function openPathsUnder(dir: string): string[] {
  const held: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) held.push(target);
    } catch {
      // closed while listing
    }
  }
  for (const line of readFileSync("/proc/self/maps", "utf8").split("\n")) {
    const file = line.split(/\s+/).slice(5).join(" ");
    if (file.startsWith(dir)) held.push(file);
  }
  return held;
}

describe("hot switch under load", () => {
  it("serves continuous requests while a new set is built and published: zero failures, new videos searchable, old files released", async () => {
    const server = await start({ watch: true, pollMs: 0 });
    const oldDir = realpathSync(dataDirLayout(server.dataDir).current);
    const oldBuiltAt = await builtAt(server);
    expect(openPathsUnder(oldDir).length).toBeGreaterThan(0);

    // A live-fetched video before the build: the build folds it in and the live store lets it go.
    expect((await call(server.baseUrl, `/v1/transcript/${fresh(50).videoId}`, { key: server.key })).body.cached).toBe(false);

    const paths = [
      "/v1/search?q=glaciers",
      `/v1/transcript/${STORED.videoId}`,
      "/v1/stats",
      `/v1/channels/${STORED.channelId}/videos`,
      "/v1/search?q=narwhal3",
      `/v1/transcript/${fresh(50).videoId}`,
    ];
    const load = steadyLoad(server.baseUrl, server.key, paths, 6);

    await new Promise((resolve) => setTimeout(resolve, 300));
    const live = server.runtime.live;
    const records = [...artifactRecords(), ...Array.from({ length: 20 }, (_, i) => newVideo(i)), ...live.records()];
    const dir = newBuildDir(server.dataDir);
    const { manifest } = await buildArtifacts({ records, outDir: dir, dataset: "live-test", liveSeq: live.maxSeq() });
    const published = Date.now();
    await publishBuild(server.dataDir, dir);
    const switchMs = await waitFor(async () => (await builtAt(server)) === manifest.builtAt);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { requests, failures } = await load.stop();

    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(50);
    expect(oldBuiltAt).not.toBe(manifest.builtAt);
    const search = await call(server.baseUrl, "/v1/search?q=narwhal3", { key: server.key });
    expect(search.body.results.map((r: { videoId: string }) => r.videoId)).toEqual([newVideo(3).videoId]);
    // The folded-in live video is now served from the artifact set, and the live store is empty again.
    expect((await call(server.baseUrl, `/v1/transcript/${fresh(50).videoId}`, { key: server.key })).body.cached).toBe(true);
    expect(live.counts().videos).toBe(0);
    expect(server.runtime.catalogs.retiredOpen).toBe(0);
    expect(openPathsUnder(oldDir)).toEqual([]);
    expect(server.logs.find((l) => l.msg === "artifact set switched")).toMatchObject({ trigger: "watch", to: realpathSync(dir) });
    expect(server.logs.some((l) => l.msg === "old artifact set released")).toBe(true);
    // The new set's full-text index was read into memory while it served.
    await waitFor(async () => server.logs.some((l) => l.msg === "search index in memory" && l.builtAt === manifest.builtAt));
    console.log(`hot switch: ${requests} requests, 0 failed, switched ${switchMs} ms after publish (${Date.now() - published} ms total)`);
  });
});

describe("switch triggers", () => {
  it("the 2 s poll fallback notices a publish when fs.watch is off", async () => {
    const server = await start({ watch: false, pollMs: 200 });
    const dir = await publishRecords(server.dataDir, [...artifactRecords(), newVideo(100)]);
    await waitFor(async () => (await call(server.baseUrl, "/v1/search?q=narwhal100", { key: server.key })).body.results.length === 1);
    expect(server.logs.find((l) => l.msg === "artifact set switched")).toMatchObject({ trigger: "poll", to: realpathSync(dir) });
  });

  it("SIGHUP switches at once when neither watching nor polling", async () => {
    const server = await start({ watch: false, pollMs: 0 });
    const stop = reloadOnSighup(server.runtime);
    try {
      await publishRecords(server.dataDir, [...artifactRecords(), newVideo(200)]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await call(server.baseUrl, "/v1/search?q=narwhal200", { key: server.key })).body.results).toEqual([]);
      process.kill(process.pid, "SIGHUP");
      await waitFor(async () => (await call(server.baseUrl, "/v1/search?q=narwhal200", { key: server.key })).body.results.length === 1);
      expect(server.logs.find((l) => l.msg === "artifact set switched")?.trigger).toBe("sighup");
    } finally {
      stop();
    }
  });

  it("a set that fails to open is refused with its reason logged; the old set keeps serving until a good one comes", async () => {
    const server = await start({ watch: true, pollMs: 0 });
    const before = await builtAt(server);
    const bad = newBuildDir(server.dataDir);
    await buildArtifacts({ records: [...artifactRecords(), newVideo(300)], outDir: bad, dataset: "live-test" });
    writeFileSync(path.join(bad, "manifest.json"), "{ not json");
    // publishBuild would refuse it: point `current` at it as an operator's hand would.
    await pointCurrentAt(server.dataDir, bad);
    await waitFor(async () => server.logs.some((l) => l.msg === "new artifact set refused; still serving the old one"));
    const refusal = server.logs.find((l) => l.msg === "new artifact set refused; still serving the old one");
    expect(refusal).toMatchObject({ level: "error", trigger: "watch", target: realpathSync(bad) });
    expect(refusal?.reason).toContain("is not a valid manifest");
    expect(await builtAt(server)).toBe(before);
    expect((await call(server.baseUrl, `/v1/transcript/${STORED.videoId}`, { key: server.key })).status).toBe(200);

    await publishRecords(server.dataDir, [...artifactRecords(), newVideo(301)]);
    await waitFor(async () => (await call(server.baseUrl, "/v1/search?q=narwhal301", { key: server.key })).body.results.length === 1);
    expect(await builtAt(server)).not.toBe(before);
  });
});
