/**
 * Shipping a set to another machine: a set published in DATA_DIR A is copied
 * (fs.cp, as rsync or object storage would) and installed into DATA_DIR B by
 * `npm run pipeline -- install-set` (a real child process) while a real
 * server serves B. The server switches to it without a failed request and
 * without hashing it again; a damaged or incomplete copy, a set much smaller
 * than the served one, and a set that would drop B's own live-fetched
 * transcripts are refused, and B keeps serving what it served. A stopped or
 * killed install leaves nothing served and nothing a later one cannot remove.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, realpathSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { cp } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ARTIFACT_FILES, type VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { readManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { padDatabase, restampManifest } from "../helpers/artifacts.js";
import { startChild, until } from "../reliability/helpers/child.js";
import { call } from "../server/helpers/http.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";
import { artifactRecords, fresh, LIVE_CHANNEL, STORED } from "../live/helpers/live-corpus.js";
import { publishRecords, type LiveServer } from "../live/helpers/live-server.js";
import { steadyLoad } from "../live/helpers/steady-load.js";
import { liveTestBed } from "../live/helpers/test-bed.js";

const HASHING = "hashing artifact set";

/** A video only the shipped sets hold; its transcript has the word `wombat<i>`. */
function shipped(i: number): VideoRecord {
  return makeVideo({
    videoId: `ship${String(i).padStart(7, "0")}`,
    channelId: LIVE_CHANNEL,
    channelTitle: "Live Test Channel",
    title: `Shipped lecture ${i}`,
    transcripts: [transcript("en", "English", false, [`the wombat${i} digs a burrow under the fence`])],
  });
}

const bed = liveTestBed();
const tempDir = (prefix: string) => bed.tempDir(prefix);

/** DATA_DIR A with `records` published; the published set's folder copied (fs.cp) to a shipping folder, returned. */
async function shipFromA(records: VideoRecord[], prepare?: (dir: string) => Promise<void>): Promise<string> {
  const a = tempDir("ship-a-");
  const published = realpathSync(await publishRecords(a, records));
  await prepare?.(published);
  const copy = join(tempDir("ship-transit-"), basename(published));
  await cp(published, copy, { recursive: true });
  return copy;
}

/** A real server on port 0 over DATA_DIR B (the live corpus's three videos published there). */
async function serverOnB(pollMs = 0): Promise<LiveServer> {
  const b = tempDir("ship-b-");
  await publishRecords(b, artifactRecords());
  return bed.start({ dataDir: b, runtime: { watch: true, pollMs }, env: { YOUTUBE_TIMEOUT_MS: "30000" } });
}

function install(dataDir: string, args: string[]) {
  return startChild("pipeline/cli.ts", ["install-set", ...args], { DATA_DIR: dataDir });
}

async function installed(dataDir: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = install(dataDir, args);
  const { code } = await child.exited;
  return { code, stderr: child.stderr() };
}

const served = (dataDir: string) => realpathSync(dataDirLayout(dataDir).current);

async function stats(server: LiveServer): Promise<{ videos: number; transcripts: number }> {
  const res = await call(server.baseUrl, "/v1/stats", { key: server.key });
  expect(res.status).toBe(200);
  return res.body as { videos: number; transcripts: number };
}

async function searchIds(server: LiveServer, q: string): Promise<string[]> {
  const res = await call(server.baseUrl, `/v1/search?q=${q}`, { key: server.key });
  expect(res.status).toBe(200);
  return (res.body.results as { videoId: string }[]).map((r) => r.videoId);
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  await until(condition, timeoutMs, "the condition");
}

/** Each test runs several child processes (tsx compiles each at start): generous on a busy machine. */
const SLOW = { timeout: 300_000 };

/** builds/ of `dataDir`: the names, partial folders included. */
const buildsOf = (dataDir: string) => readdirSync(dataDirLayout(dataDir).builds).sort();

describe("install-set: a set published on A, copied, installed on B", SLOW, () => {
  it("switches B's running server to it with no failed request and no second hashing", async () => {
    const server = await serverOnB();
    const copy = await shipFromA([...artifactRecords(), ...Array.from({ length: 30 }, (_, i) => shipped(i))]);
    const before = await stats(server);
    expect(await searchIds(server, "wombat7")).toEqual([]);

    const paths = ["/v1/stats", "/v1/search?q=wombat7", "/v1/search?q=glaciers", `/v1/transcript/${STORED.videoId}`];
    const load = steadyLoad(server.baseUrl, server.key, paths, 4);

    const result = await installed(server.dataDir, [copy]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stderr).toMatch(/published .*: \{"channels":1,"videos":33,"transcripts":32/);
    const target = join(realpathSync(dataDirLayout(server.dataDir).builds), basename(copy));
    expect(served(server.dataDir)).toBe(target);
    await waitFor(async () => (await stats(server)).videos === 33);
    const { requests, failures } = await load.stop();

    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(10);
    expect(before.videos).toBe(3);
    expect((await stats(server)).transcripts).toBe(32);
    expect(await searchIds(server, "wombat7")).toEqual([shipped(7).videoId]);
    // The install hashed the copy and recorded it: the server did not hash it again.
    expect(server.logs.some((l) => l.msg === "artifact set switched" && l.to === target)).toBe(true);
    expect(server.logs.filter((l) => l.msg === HASHING && l.dir === target)).toEqual([]);
    // The installed files are byte for byte the shipped ones, and no partial folder is left.
    for (const name of Object.values(ARTIFACT_FILES)) expect(readFileSync(join(target, name)).equals(readFileSync(join(copy, name))), name).toBe(true);
    expect(buildsOf(server.dataDir).filter((n) => n.startsWith("."))).toEqual([]);

    // Installing the same folder again changes nothing.
    const again = await installed(server.dataDir, [copy]);
    expect(again.code, again.stderr).toBe(EXIT.ok);
    expect(again.stderr).toMatch(/already the published set/);
    expect(served(server.dataDir)).toBe(target);
  });

  it("refuses a copy with one byte of its database changed (same size), naming the file; the server keeps serving the old set", async () => {
    const server = await serverOnB(100);
    const copy = await shipFromA([...artifactRecords(), shipped(1)]);
    const database = join(copy, ARTIFACT_FILES.database);
    const fd = openSync(database, "r+");
    try {
      const byte = Buffer.alloc(1);
      const offset = 4096 + 100;
      readSync(fd, byte, 0, 1, offset);
      byte[0] = byte[0]! ^ 0xff;
      writeSync(fd, byte, 0, 1, offset);
    } finally {
      closeSync(fd);
    }
    const old = served(server.dataDir);
    const buildsBefore = buildsOf(server.dataDir);

    const result = await installed(server.dataDir, [copy]);
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toContain(`${database} (copied to .${basename(copy)}.partial-`);
    expect(result.stderr).toMatch(/does not match its checksum in the manifest/);
    expect(served(server.dataDir)).toBe(old);
    expect(buildsOf(server.dataDir)).toEqual(buildsBefore);
    // Two polls later the server still serves the old set.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stats(server)).toMatchObject({ videos: 3 });
    expect(await searchIds(server, "wombat1")).toEqual([]);
  });

  it("refuses a copy missing a file, naming it, before copying anything", async () => {
    const server = await serverOnB();
    const copy = await shipFromA([...artifactRecords(), shipped(1)]);
    unlinkSync(join(copy, ARTIFACT_FILES.titleIndex));
    const old = served(server.dataDir);
    const buildsBefore = buildsOf(server.dataDir);

    const result = await installed(server.dataDir, [copy]);
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toContain(`${join(copy, ARTIFACT_FILES.titleIndex)} named in the manifest is missing`);
    expect(served(server.dataDir)).toBe(old);
    expect(buildsOf(server.dataDir)).toEqual(buildsBefore);

    // A folder without a manifest is not a set.
    unlinkSync(join(copy, ARTIFACT_FILES.manifest));
    const none = await installed(server.dataDir, [copy]);
    expect(none.code).toBe(EXIT.failed);
    expect(none.stderr).toMatch(/manifest\.json is missing/);
  });

  it("applies the publish guard: a much smaller set is refused (exit 5) unless --force", async () => {
    const b = tempDir("ship-b-");
    await publishRecords(b, [...artifactRecords(), ...Array.from({ length: 10 }, (_, i) => shipped(i))]);
    const old = served(b);
    const copy = await shipFromA([STORED]);

    const refused = await installed(b, [copy]);
    expect(refused.code).toBe(EXIT.refused);
    expect(refused.stderr).toMatch(/refusing to publish: the new set has 1 transcripts .* has 12 .*--force/);
    expect(served(b)).toBe(old);
    expect(buildsOf(b).filter((n) => n === basename(copy) || n.startsWith("."))).toEqual([]);

    const forced = await installed(b, [copy, "--force"]);
    expect(forced.code, forced.stderr).toBe(EXIT.ok);
    expect(served(b)).toBe(join(realpathSync(dataDirLayout(b).builds), basename(copy)));
  });

  it("publishes again a set builds/ still holds under its id, and refuses a different set under a taken id", async () => {
    const b = tempDir("ship-b-");
    await publishRecords(b, artifactRecords());
    const first = await shipFromA([...artifactRecords(), shipped(1)]);
    const second = await shipFromA([...artifactRecords(), shipped(1), shipped(2)]);
    for (const copy of [first, second]) expect((await installed(b, [copy])).code).toBe(EXIT.ok);
    const back = await installed(b, [first]);
    expect(back.code, back.stderr).toBe(EXIT.ok);
    expect(back.stderr).toMatch(/holds this set already: checking it and publishing it/);
    expect(served(b)).toBe(join(realpathSync(dataDirLayout(b).builds), basename(first)));

    // Another set under the second one's id (its folder name).
    const impostor = join(tempDir("ship-transit-"), basename(second));
    await cp(first, impostor, { recursive: true });
    const clash = await installed(b, [impostor]);
    expect(clash.code).toBe(EXIT.failed);
    expect(clash.stderr).toMatch(/already holds a different set .* under this id; nothing was installed/);
    expect(served(b)).toBe(join(realpathSync(dataDirLayout(b).builds), basename(first)));
  });

  it("answers bad usage with 2, what is wrong and the usage line", async () => {
    const b = tempDir("ship-b-");
    for (const args of [[], ["a", "b"], ["a", "--bogus"]]) {
      const result = await installed(b, args);
      expect(result.code, args.join(" ")).toBe(EXIT.usage);
      expect(result.stderr).toMatch(/^install-set: .+\nusage: npm run pipeline -- install-set DIR/);
    }
  });
});

describe("install-set and B's live store", SLOW, () => {
  it("keeps a transcript B fetched live served as stored (cached: true) after installing a set from A that lacks it", async () => {
    const server = await serverOnB();
    const id = fresh(11).videoId;
    const get = async () => {
      const res = await call(server.baseUrl, `/v1/transcript/${id}`, { key: server.key });
      return { status: res.status, cached: res.body.cached as boolean | undefined };
    };
    expect(await get()).toEqual({ status: 200, cached: false });
    const counted = (await stats(server)).transcripts;
    const copy = await shipFromA([...artifactRecords(), ...Array.from({ length: 5 }, (_, i) => shipped(i))]);
    expect(readManifest(copy).liveStoreId).toBeUndefined();

    const result = await installed(server.dataDir, [copy]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    await waitFor(async () => (await stats(server)).videos === 3 + 5 + 1);
    expect(await get()).toEqual({ status: 200, cached: true });
    // The set's five new transcripts, and the live one still counted.
    expect((await stats(server)).transcripts).toBe(counted + 5);
    expect(await searchIds(server, "quokka11")).toEqual([id]);
    expect([...server.runtime.live.records()].map((r) => r.videoId)).toEqual([id]);
    expect(bed.standin.stats.byVideo[id]?.player).toBe(1);
  });

  it("refuses a set from A once B's own published sets hold B's live records and they left live.db", async () => {
    const server = await serverOnB();
    const id = fresh(12).videoId;
    expect((await call(server.baseUrl, `/v1/transcript/${id}`, { key: server.key })).body.cached).toBe(false);
    // B's own pipeline folds its live store into a set (watermark: B's store, #1) and publishes it, twice:
    // then every set in builds/ holds the record, and it leaves live.db.
    for (const round of [1, 2]) {
      const child = startChild("pipeline/cli.ts", ["build"], { DATA_DIR: server.dataDir });
      const { code } = await child.exited;
      expect(code, `build ${round}: ${child.stderr()}`).toBe(EXIT.ok);
    }
    const own = served(server.dataDir);
    expect(readManifest(own)).toMatchObject({ liveSeq: 1, liveStoreId: server.runtime.live.storeId });
    await waitFor(() => server.logs.some((l) => l.msg === "artifact set switched" && l.to === own));
    expect([...server.runtime.live.records()]).toEqual([]);
    expect((await call(server.baseUrl, `/v1/transcript/${id}`, { key: server.key })).body.cached).toBe(true);

    const copy = await shipFromA([...artifactRecords(), ...Array.from({ length: 5 }, (_, i) => shipped(i))]);
    const refused = await installed(server.dataDir, [copy]);
    expect(refused.code).toBe(EXIT.refused);
    expect(refused.stderr).toMatch(new RegExp(`the set ${basename(own)} holds this machine's live-fetched transcripts through #1 .* the new set through #0`));
    // What was answered as stored is never given up, not even with --force.
    const forced = await installed(server.dataDir, [copy, "--force"]);
    expect(forced.code).toBe(EXIT.refused);
    expect(forced.stderr).toMatch(/--force does not change this/);
    expect(served(server.dataDir)).toBe(own);
    expect(buildsOf(server.dataDir)).not.toContain(basename(copy));
    expect((await call(server.baseUrl, `/v1/transcript/${id}`, { key: server.key })).body.cached).toBe(true);
  });
});

describe("install-set stopped midway", SLOW, () => {
  /** A shipped set whose database is padded by `mib` MiB, so copying and hashing it take a while. */
  const bigCopy = (mib: number) =>
    shipFromA([...artifactRecords(), shipped(1)], async (dir) => {
      padDatabase(dir, mib);
      await restampManifest(dir);
    });

  it("SIGTERM while copying: exit 130, the partial folder removed, nothing published", async () => {
    const b = tempDir("ship-b-");
    await publishRecords(b, artifactRecords());
    const old = served(b);
    const copy = await bigCopy(256);
    const child = install(b, [copy]);
    await until(() => child.stderr().includes(`copying ${ARTIFACT_FILES.database}`), 120_000, "the copy to start");
    child.process.kill("SIGTERM");
    const { code } = await child.exited;
    expect(code, child.stderr()).toBe(EXIT.interrupted);
    expect(child.stderr()).toMatch(/SIGTERM: stopping the install/);
    expect(served(b)).toBe(old);
    expect(buildsOf(b)).toEqual([basename(old)]);
  });

  it("kill -9 while copying: only a partial folder is left, never served, removed by the next install", async () => {
    const b = tempDir("ship-b-");
    await publishRecords(b, artifactRecords());
    const old = served(b);
    const copy = await bigCopy(256);
    const child = install(b, [copy]);
    await until(() => child.stderr().includes(`copying ${ARTIFACT_FILES.database}`), 120_000, "the copy to start");
    child.process.kill("SIGKILL");
    await child.exited;
    expect(served(b)).toBe(old);
    const left = buildsOf(b).filter((n) => n !== basename(old));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(new RegExp(`^\\.${basename(copy)}\\.partial-${child.process.pid}-\\d+$`));
    expect(existsSync(join(dataDirLayout(b).builds, basename(copy)))).toBe(false);
    // The dead install's lock is taken over, its partial folder removed, and the set installed whole.
    const again = await installed(b, [copy]);
    expect(again.code, again.stderr).toBe(EXIT.ok);
    expect(buildsOf(b)).toEqual([basename(old), basename(copy)].sort());
    expect(served(b)).toBe(join(realpathSync(dataDirLayout(b).builds), basename(copy)));
  });
});
