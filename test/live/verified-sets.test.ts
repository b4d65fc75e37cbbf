/**
 * Only verified artifact sets are served: the pipeline checks a build against
 * its manifest before publishing it, a running server hashes a new set (off
 * its own thread, still answering) before switching to it, a damaged set is
 * not served at start (an earlier verified build is, or the start is refused),
 * this machine's record of verified sets spares an unchanged set a second
 * hashing, and a database fault at run time marks the server unhealthy and
 * sends it back to an earlier verified set.
 */
import { copyFileSync, existsSync, readFileSync, realpathSync, renameSync, unlinkSync, utimesSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { ARTIFACT_FILES, type VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { newBuildDir, pointCurrentAt, publishBuild } from "../../pipeline/publish/publish.js";
import { corruptDatabase, corruptTable, padDatabase, restampManifest } from "../helpers/artifacts.js";
import { startChild, TEST_SERVER_ENV } from "../reliability/helpers/child.js";
import { call } from "../server/helpers/http.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";
import { artifactRecords, STORED } from "./helpers/live-corpus.js";
import { publishRecords, startLiveServer, type LiveServer, type LiveServerOptions } from "./helpers/live-server.js";
import { liveTestBed } from "./helpers/test-bed.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { readManifest } from "../../pipeline/artifact/manifest/index.js";

const REFUSED = "new artifact set refused; still serving the old one";
const HASHING = "hashing artifact set";

function extra(i: number): VideoRecord {
  return makeVideo({
    videoId: `verify${String(i).padStart(5, "0")}`,
    title: `Verified later ${i}`,
    transcripts: [transcript("en", "English", false, [`the pelican${i} dives beside the pier`])],
  });
}

const bed = liveTestBed();

function start(options: LiveServerOptions = {}): Promise<LiveServer> {
  return bed.start({ runtime: { watch: true, pollMs: 0 }, ...options });
}

const tempDataDir = () => bed.tempDir("verify-data-");

/** A build in `dataDir/builds` that is not published. */
async function build(dataDir: string, records: VideoRecord[]): Promise<string> {
  const dir = newBuildDir(dataDir);
  await buildArtifacts({ records, outDir: dir, dataset: "live-test" });
  return realpathSync(dir);
}

async function health(server: LiveServer) {
  return call(server.baseUrl, "/healthz");
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function hashed(server: LiveServer, dir: string): number {
  return server.logs.filter((l) => l.msg === HASHING && l.dir === dir).length;
}

function recorded(dataDir: string): string[] {
  const file = dataDirLayout(dataDir).verified;
  return existsSync(file) ? Object.keys((JSON.parse(readFileSync(file, "utf8")) as { sets: object }).sets) : [];
}

describe("publishBuild checks what it wrote", () => {
  it("refuses a build with 4 × 64 KiB of its database overwritten: nothing published, the build removed, the file named", async () => {
    const dataDir = tempDataDir();
    const good = realpathSync(await publishRecords(dataDir, artifactRecords()));
    const bad = await build(dataDir, [...artifactRecords(), extra(1)]);
    corruptDatabase(bad);
    await expect(publishBuild(dataDir, bad)).rejects.toThrow(/does not match its manifest and was not published.*transcripts\.db does not match its checksum/);
    expect(existsSync(bad)).toBe(false);
    expect(realpathSync(dataDirLayout(dataDir).current)).toBe(good);
    // What it did verify is in this machine's record, for the server.
    expect(recorded(dataDir)).toEqual([good]);
  });
});

describe("a running server verifies a new set before it switches", () => {
  it("keeps serving the old set, answering 200 while it hashes, and refuses a damaged one once despite watch and poll", async () => {
    const server = await start({ runtime: { watch: true, pollMs: 50 } });
    const before = (await health(server)).body.builtAt as string;
    const bad = await build(server.dataDir, [...artifactRecords(), extra(2)]);
    // Large enough that hashing takes a while; then damaged as in the issue.
    padDatabase(bad, 192);
    await restampManifest(bad);
    corruptDatabase(bad);

    let running = true;
    const answers: { at: number; status: number }[] = [];
    const client = async (): Promise<void> => {
      while (running) {
        const res = await call(server.baseUrl, `/v1/transcript/${STORED.videoId}`, { key: server.key });
        answers.push({ at: Date.now(), status: res.status });
      }
    };
    const clients = [client(), client(), client()];
    await pointCurrentAt(server.dataDir, bad);
    await waitFor(() => server.logs.some((l) => l.msg === REFUSED));
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    await Promise.all(clients);

    const hashing = server.logs.find((l) => l.msg === HASHING && l.dir === bad)!;
    const refusal = server.logs.find((l) => l.msg === REFUSED)!;
    expect(refusal).toMatchObject({ level: "error", target: bad });
    expect(refusal.reason).toMatch(/transcripts\.db does not match its checksum/);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const during = answers.filter((a) => a.at > Date.parse(hashing.time) && a.at < Date.parse(refusal.time));
    expect(during.length).toBeGreaterThan(0);
    console.log(`verification of a ${hashing.bytes} byte set while serving: ${answers.length} answers, ${during.length} during ${Date.parse(refusal.time) - Date.parse(hashing.time)} ms of hashing`);

    // Polls every 50 ms and the watch event during the hashing led to one hashing, and none after.
    expect(hashed(server, bad)).toBe(1);
    expect(await server.runtime.reload("poll")).toBe("unchanged");
    expect(hashed(server, bad)).toBe(1);
    const h = await health(server);
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ status: "degraded", builtAt: before });
    expect(h.body.reason).toContain(bad);
    expect((await call(server.baseUrl, "/readyz")).status).toBe(200);

    // SIGHUP's forced retry hashes it again, and refuses it again.
    expect(await server.runtime.reload("sighup", true)).toBe("failed");
    expect(hashed(server, bad)).toBe(2);
    expect((await health(server)).body.builtAt).toBe(before);
  });

  it("switches to a set the pipeline verified without hashing it again, and hashes a set pointed at by hand first", async () => {
    const server = await start();
    const published = realpathSync(await publishRecords(server.dataDir, [...artifactRecords(), extra(3)]));
    await waitFor(() => server.logs.some((l) => l.msg === "artifact set switched" && l.to === published));
    expect(hashed(server, published)).toBe(0);

    const byHand = await build(server.dataDir, [...artifactRecords(), extra(4)]);
    await pointCurrentAt(server.dataDir, byHand);
    await waitFor(() => server.logs.some((l) => l.msg === "artifact set switched" && l.to === byHand));
    expect(hashed(server, byHand)).toBe(1);
    expect((await health(server)).body.status).toBe("ok");
  });
});

describe("at start", () => {
  it("serves the newest earlier build that verifies when the published set is damaged, degraded, and does not switch to it", async () => {
    let good = "";
    let bad = "";
    const server = await start({
      prepare: async (dataDir) => {
        good = realpathSync(dataDirLayout(dataDir).current);
        bad = await build(dataDir, [...artifactRecords(), extra(5)]);
        corruptDatabase(bad);
        await pointCurrentAt(dataDir, bad);
      },
    });
    const goodBuiltAt = (JSON.parse(readFileSync(path.join(good, ARTIFACT_FILES.manifest), "utf8")) as { builtAt: string }).builtAt;
    const h = await health(server);
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ status: "degraded", builtAt: goodBuiltAt });
    expect(h.body.reason).toContain(bad);
    expect(server.logs.find((l) => l.msg.startsWith("published artifact set failed verification"))).toMatchObject({ level: "error", published: bad, served: good });
    expect((await call(server.baseUrl, `/v1/transcript/${STORED.videoId}`, { key: server.key })).status).toBe(200);
    expect(await server.runtime.reload("poll")).toBe("unchanged");
    expect(hashed(server, bad)).toBe(1);
  });

  it("readies the published set while its files are hashed, and reconciles the live store with it only once they match", async () => {
    let dataDirSeen = "";
    const readied: { dir: string; recordedYet: boolean; version: string }[] = [];
    const server = await start({
      prepare: (dataDir) => {
        dataDirSeen = dataDir;
        unlinkSync(dataDirLayout(dataDir).verified);
      },
      runtime: {
        watch: false,
        pollMs: 0,
        prepare: async (catalog) => {
          readied.push({ dir: catalog.dir, recordedYet: recorded(dataDirSeen).includes(catalog.dir), version: catalog.version() });
          // Readied means searched: what the warm-up and the practice requests do.
          catalog.search({ q: "pelican", limit: 10, offset: 0 });
        },
      },
    });
    const dir = realpathSync(dataDirLayout(dataDirSeen).current);
    expect(readied).toEqual([{ dir, recordedYet: false, version: expect.stringMatching(/\/0$/) as unknown as string }]);
    expect(hashed(server, dir)).toBe(1);
    expect(recorded(dataDirSeen)).toEqual([dir]);
    // Reconciled after: the live store's generation moved on from the one the set was readied at.
    expect(server.runtime.catalogs.current.version()).not.toBe(readied[0]!.version);
  });

  it("closes a published set that fails verification after readying it, and readies the earlier build it serves instead", async () => {
    let good = "";
    let bad = "";
    const readied: string[] = [];
    const server = await start({
      prepare: async (dataDir) => {
        good = realpathSync(dataDirLayout(dataDir).current);
        bad = await build(dataDir, [...artifactRecords(), extra(6)]);
        // Damaged where opening the set does not look (a set damaged where it does fails to open, and is not readied).
        corruptTable(bad, "transcripts");
        await pointCurrentAt(dataDir, bad);
      },
      runtime: { watch: false, pollMs: 0, prepare: async (catalog) => void readied.push(catalog.dir) },
    });
    expect(readied).toEqual([bad, good]);
    expect(server.runtime.catalogs.current.dir).toBe(good);
    expect((await call(server.baseUrl, `/v1/transcript/${STORED.videoId}`, { key: server.key })).status).toBe(200);
  });

  it("refuses to start when no set verifies, saying why", async () => {
    const failure = await start({ prepare: (dataDir) => void corruptDatabase(realpathSync(dataDirLayout(dataDir).current)) }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/failed verification and no earlier build in .* verifies, so nothing is served: .*transcripts\.db does not match its checksum/);
  });

  it("npm start exits non-zero with that message", async () => {
    const dataDir = tempDataDir();
    corruptDatabase(realpathSync(await publishRecords(dataDir, artifactRecords())));
    const child = startChild("server/main.ts", [], { DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LIVE_FETCH: "off", ...TEST_SERVER_ENV });
    const { code } = await child.exited;
    expect(code).toBe(1);
    expect(child.stderr()).toMatch(/Startup failed: The published artifact set .* failed verification/);
  });
});

describe("this machine's record of verified sets", () => {
  it("spares an unchanged set a hashing at restart, and hashes it again after a touch or a rewrite", async () => {
    const dataDir = tempDataDir();
    const dir = realpathSync(await publishRecords(dataDir, artifactRecords()));
    const db = path.join(dir, ARTIFACT_FILES.database);
    const restart = async (): Promise<number> => {
      const server = await startLiveServer({ standin: bed.standin, dataDir, runtime: { watch: false, pollMs: 0 } });
      await server.close();
      return hashed(server, dir);
    };
    // publishBuild verified it: no hashing at the first start, nor the next.
    expect(await restart()).toBe(0);
    expect(await restart()).toBe(0);
    unlinkSync(dataDirLayout(dataDir).verified);
    expect(await restart()).toBe(1);
    expect(recorded(dataDir)).toEqual([dir]);
    expect(await restart()).toBe(0);
    // Touched: a new mtime.
    const later = new Date(Date.now() + 60_000);
    utimesSync(db, later, later);
    expect(await restart()).toBe(1);
    expect(await restart()).toBe(0);
    // Rewritten with the same bytes: a new inode.
    copyFileSync(db, `${db}.copy`);
    renameSync(`${db}.copy`, db);
    expect(await restart()).toBe(1);
    expect(await restart()).toBe(0);
  });
});

describe("a set verified earlier, read into the page cache at start", () => {
  it("is read through, every file to its end, at a start that does not hash it; not at one that does, nor with PREREAD_SET=off", async () => {
    const dataDir = tempDataDir();
    const dir = realpathSync(await publishRecords(dataDir, artifactRecords()));
    const total = Object.values(readManifest(dir).files).reduce((sum, file) => sum + file.bytes, 0);
    const PREREAD = "artifact set read into the page cache";
    /** The preread lines of a start; `until`: once one is logged, else closed at once (a close stops a read begun and waits for its line). */
    const prereads = async (env: Record<string, string> = {}, until = false) => {
      const server = await startLiveServer({ standin: bed.standin, dataDir, env, runtime: { watch: false, pollMs: 0 } });
      if (until) await waitFor(() => server.logs.some((l) => l.msg === PREREAD));
      await server.close();
      return server.logs.filter((l) => l.msg === PREREAD);
    };
    expect(await prereads({}, true)).toEqual([expect.objectContaining({ dir, bytes: total, outcome: "complete" })]);
    unlinkSync(dataDirLayout(dataDir).verified);
    expect(await prereads()).toEqual([]);
    expect(await prereads({ PREREAD_SET: "off" })).toEqual([]);
    expect(await prereads({ PREREAD_SET: "on" })).toHaveLength(1);
  });
});

describe("a database fault at run time", () => {
  it("marks /healthz and /readyz unhealthy (503) when no earlier set verifies", async () => {
    const server = await start({
      prepare: async (dataDir) => {
        // Damaged pages that still match the manifest (as a set built damaged would): verification passes.
        const dir = realpathSync(dataDirLayout(dataDir).current);
        expect(corruptTable(dir, "transcripts")).toBeGreaterThan(0);
        await restampManifest(dir);
      },
    });
    expect((await call(server.baseUrl, "/readyz")).status).toBe(200);
    const res = await call(server.baseUrl, `/v1/transcript/${STORED.videoId}`, { key: server.key });
    expect(res.status).toBe(500);
    expect(res.body.code).toBe("internal_error");
    const h = await health(server);
    expect(h.status).toBe(503);
    expect(h.body.status).toBe("unhealthy");
    expect(h.body.reason).toMatch(/SQLITE_CORRUPT/);
    const ready = await call(server.baseUrl, "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ ready: false, status: "unhealthy" });
    await waitFor(() => server.logs.some((l) => l.msg === "no earlier artifact set verifies; still serving the damaged one"));
  });

  it("goes back to the previous verified set, does not return to the damaged one while current is unchanged, and takes the next good publish", async () => {
    const server = await start();
    const good = realpathSync(dataDirLayout(server.dataDir).current);
    const goodBuiltAt = (await health(server)).body.builtAt as string;
    const bad = await build(server.dataDir, [...artifactRecords(), extra(6)]);
    corruptTable(bad, "transcripts");
    await restampManifest(bad);
    await publishBuild(server.dataDir, bad);
    await waitFor(() => server.logs.some((l) => l.msg === "artifact set switched" && l.to === bad));
    expect(recorded(server.dataDir)).toContain(bad);

    expect((await call(server.baseUrl, `/v1/transcript/${STORED.videoId}`, { key: server.key })).status).toBe(500);
    await waitFor(() => server.logs.some((l) => l.msg === "artifact set switched" && l.trigger === "fault" && l.to === good));
    expect(server.logs.find((l) => l.msg.startsWith("artifact set database fault"))).toMatchObject({ level: "error", dir: bad, code: "SQLITE_CORRUPT" });
    const h = await health(server);
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ status: "degraded", builtAt: goodBuiltAt });
    expect((await call(server.baseUrl, "/readyz")).status).toBe(200);
    expect((await call(server.baseUrl, `/v1/transcript/${STORED.videoId}`, { key: server.key })).status).toBe(200);
    // Not switched back while `current` still points at it, and no longer vouched for.
    expect(await server.runtime.reload("poll")).toBe("unchanged");
    expect((await health(server)).body.builtAt).toBe(goodBuiltAt);
    expect(recorded(server.dataDir)).not.toContain(bad);

    const next = realpathSync(await publishRecords(server.dataDir, [...artifactRecords(), extra(7)]));
    await waitFor(() => server.logs.some((l) => l.msg === "artifact set switched" && l.to === next));
    expect((await health(server)).body.status).toBe("ok");
  });
});
