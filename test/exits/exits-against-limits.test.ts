/**
 * The exits for real: the pipeline fetching one channel from the stand-in
 * with YouTube's limits on (a budget per client address per window, then a
 * cool-down), through loopback exit proxies that each leave from their own
 * address. Checked from the stand-in's own record of every request and block.
 */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createProgress } from "../../pipeline/run/report-progress.js";
import { startExitProxies, type ExitProxy } from "../../scripts/youtube-standin/exit-proxy.js";
import type { LimitsConfig } from "../../scripts/youtube-standin/limits.js";
import { run, stateRows, tempDataDir } from "../pipeline/helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "../pipeline/helpers/synthetic-standin.js";

const VIDEOS = 18;
/** What the stand-in allows each address: 8 requests per 2 s, then 2 s of cool-down. */
const LIMITS: LimitsConfig = { budget: 8, windowMs: 2_000, coolDownMs: 2_000 };

let world: SyntheticStandin;
let exits: ExitProxy[];
let data: ReturnType<typeof tempDataDir>;
let list: string;
/** Videos of the corpus with at least one transcript: what a complete run stores. */
let captioned: number;

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: VIDEOS, channels: 1, seed: 11 });
  exits = await startExitProxies(3);
  captioned = Array.from({ length: VIDEOS }, (_, i) => world.corpus.videoAt(i)).filter((v) => v.transcripts.length > 0).length;
});
afterAll(async () => {
  await Promise.all(exits.map((e) => e.close()));
  await world.close();
});
beforeEach(() => {
  data = tempDataDir();
  list = writeChannelList(join(data.dir, "channels.txt"), world.corpus);
  world.standin.resetLimits();
});
afterEach(() => {
  world.standin.setLimits(null);
  data.cleanup();
});

/** A port nothing listens on: a proxy that is down. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function progressText(): { progress: ReturnType<typeof createProgress>; text(): string } {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  return { progress: createProgress({ stream, tty: false, intervalMs: 200 }), text: () => text };
}

/** The most requests of one address inside any `windowMs`. */
function busiestWindow(times: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe("the pipeline through exits against YouTube's limits", () => {
  it("keeps each exit under its pace: no block, every address within its budget, every transcript stored", async () => {
    world.standin.setLimits(LIMITS);
    const summary = await run({
      dataDir: data.dir,
      channelsFile: list,
      origin: world.standin.origin,
      proxyUrls: exits.map((e) => e.url),
      // 8 per 2 s is 240 a minute; a little under it leaves room for the network's jitter.
      exitPolicy: { requestsPerMinute: 200, maxInFlight: 1 },
      build: false,
    });
    expect(summary.exitCode).toBe(0);
    expect(summary.transcripts.fetched).toBe(captioned);
    const report = world.standin.limitsReport();
    expect(report.totals.blocked).toBe(0);
    const addresses = exits.map((e) => e.localAddress);
    expect(Object.keys(report.addresses).sort()).toEqual(addresses);
    for (const address of addresses) {
      const times = world.standin.limitsRecord(address)!.requests;
      expect(times.length).toBeGreaterThan(10);
      expect(busiestWindow(times, LIMITS.windowMs)).toBeLessThanOrEqual(LIMITS.budget);
    }
    // The summary's view of the exits is the stand-in's: every request counted once, none blocked.
    expect(summary.exits.map((e) => e.sent).reduce((a, b) => a + b)).toBe(report.totals.requests);
  });

  it("after a block sends nothing through that exit before its Retry-After, and fetches the blocked videos again in the same run, none recorded as failed", async () => {
    world.standin.setLimits({ ...LIMITS, answer: "rate-limit" });
    const summary = await run({
      dataDir: data.dir,
      channelsFile: list,
      origin: world.standin.origin,
      proxyUrls: exits.map((e) => e.url),
      // Unpaced: the exits run into the budget and are told to rest.
      exitPolicy: { requestsPerMinute: 0, maxInFlight: 1 },
      maxBlockedRetries: 0,
      build: false,
    });
    const report = world.standin.limitsReport();
    expect(report.totals.blocked).toBeGreaterThan(0);
    expect(report.totals.duringAnnouncedCoolDown).toBe(0);
    expect(summary.transcripts.requeued).toBeGreaterThan(0);
    expect(summary).toMatchObject({ exitCode: 0, transcripts: { fetched: captioned, failed: {} } });
    // What is recorded as failed is what the videos are (no captions), never a block.
    const recorded = stateRows<{ last_error: string }>(data.dir, "SELECT last_error FROM videos WHERE status = 'failed'").map((r) => r.last_error);
    expect(recorded.filter((code) => code !== "transcripts_disabled")).toEqual([]);
    expect(stateRows<{ n: number }>(data.dir, "SELECT count(*) AS n FROM videos WHERE status = 'pending'")[0]?.n).toBe(0);
  });

  it("with every exit cooling, waits and says so, then completes", async () => {
    // The bot check gives no Retry-After: the exits rest their own cool-down (2 s and up, like the stand-in's).
    world.standin.setLimits({ ...LIMITS, answer: "bot-check" });
    const { progress, text } = progressText();
    const summary = await run({
      dataDir: data.dir,
      channelsFile: list,
      origin: world.standin.origin,
      proxyUrls: exits.slice(0, 2).map((e) => e.url),
      exitPolicy: { requestsPerMinute: 0, maxInFlight: 1, coolDownMs: 2_000, coolDownMaxMs: 4_000 },
      progress,
      build: false,
    });
    expect(text()).toMatch(/waiting: all 2 exits cooling, next in \d+ s/);
    expect(summary).toMatchObject({ exitCode: 0, transcripts: { fetched: captioned, failed: {} } });
    expect(world.standin.limitsReport().totals.blocked).toBeGreaterThan(0);
  });

  it("takes a dead proxy out after a few tries and completes on the others", async () => {
    world.standin.setLimits(LIMITS);
    const dead = await closedPort();
    const summary = await run({
      dataDir: data.dir,
      channelsFile: list,
      origin: world.standin.origin,
      proxyUrls: [dead, ...exits.slice(0, 2).map((e) => e.url)],
      exitPolicy: { requestsPerMinute: 200, maxInFlight: 1, deadAfterFailures: 3 },
      build: false,
    });
    expect(summary).toMatchObject({ exitCode: 0, transcripts: { fetched: captioned, failed: {} } });
    const [deadExit, ...live] = summary.exits;
    // Three failed connections took it out; it was not probed again within the run (30 s later).
    expect(deadExit).toMatchObject({ condition: "dead", sent: 3, failed: 3 });
    for (const exit of live) expect(exit).toMatchObject({ failed: 0 });
    expect(world.standin.limitsReport().totals.blocked).toBe(0);
  });
});
