/**
 * Upstream faults through the real server process and its live fetcher:
 * each answers the documented 502/504 within YOUTUBE_TIMEOUT_MS (plus
 * slack), stores nothing, and leaves the server's memory bounded, including
 * a 100 MB answer and a proxy that accepts connections and never answers.
 * (test/live/upstream-failures.test.ts maps every fault to its code in-process;
 * this adds the time bound, the process's RSS and the hostile upstreams.)
 */
import Database from "better-sqlite3";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { Fault } from "../../scripts/youtube-standin/faults.js";
import { englishVideoIds, startSyntheticStandin, type SyntheticStandin } from "../pipeline/helpers/synthetic-standin.js";
import { call, expectProblem } from "../server/helpers/http.js";
import { expectNoLeaks } from "./helpers/response-checks.js";
import { prepareDataDir, startServerProcess, type DataDir, type ServerProcess } from "./helpers/server-process.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

const TIMEOUT_MS = 1_000;
/** Process start-up of a fetch, the loaded machine, and the single-step nature of the timeout. */
const SLACK_MS = 1_500;
const MB = 1024 * 1024;

let world: SyntheticStandin;
let hangingServer: net.Server;
const hung: net.Socket[] = [];
let data: DataDir;
let proxyData: DataDir;
let server: ServerProcess;
let viaHangingProxy: ServerProcess;
/** A video with an English transcript that the stand-in has and the artifact set does not; a new one each time. */
let freshId: () => string;

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 400, channels: 2, seed: 3 });
  freshId = englishVideoIds(world.corpus);
  hangingServer = net.createServer((socket) => {
    hung.push(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => hangingServer.listen(0, "127.0.0.1", resolve));
  const hangingPort = (hangingServer.address() as net.AddressInfo).port;
  [data, proxyData] = await Promise.all([prepareDataDir(), prepareDataDir()]);
  const env = { YOUTUBE_ORIGIN: world.standin.origin, YOUTUBE_TIMEOUT_MS: String(TIMEOUT_MS), YOUTUBE_MAX_BLOCKED_RETRIES: "0" };
  [server, viaHangingProxy] = await Promise.all([
    startServerProcess(data.dir, env),
    startServerProcess(proxyData.dir, { ...env, YOUTUBE_PROXY_URLS: `http://127.0.0.1:${hangingPort}` }),
  ]);
});
afterAll(async () => {
  await server?.stop();
  await viaHangingProxy?.stop();
  for (const socket of hung) socket.destroy();
  hangingServer?.close();
  await world?.close();
  data?.cleanup();
  proxyData?.cleanup();
});
beforeEach(() => world.standin.setFault(null));

function liveRecords(dataDir: string): number {
  const db = new Database(dataDirLayout(dataDir).liveStore, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM live_records").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe("upstream faults through the server process", () => {
  const cases: { name: string; fault: Fault; status: number; code: string }[] = [
    { name: "an upstream slower than YOUTUBE_TIMEOUT_MS", fault: { kind: "slow", delayMs: 10_000 }, status: 504, code: "upstream_timeout" },
    { name: "a connection reset mid-body", fault: { kind: "connection-reset", endpoint: "timedtext" }, status: 502, code: "connection_failed" },
    { name: "a body cut short", fault: { kind: "truncated-body", endpoint: "watch" }, status: 502, code: "connection_failed" },
    { name: "a 500 from upstream", fault: { kind: "server-error", status: 500 }, status: 502, code: "upstream_status" },
    { name: "malformed JSON", fault: { kind: "malformed-json" }, status: 502, code: "upstream_unparsable" },
    { name: "truncated XML", fault: { kind: "truncated-xml" }, status: 502, code: "upstream_unparsable" },
  ];

  test.each(cases)("$name → $status $code within the timeout, nothing stored", async ({ fault, status, code }) => {
    const before = liveRecords(data.dir);
    world.standin.setFault(fault);
    const { value: res, ms } = await timed(() => call(server.baseUrl, `/v1/transcript/${freshId()}`, { key: data.key }));
    expectProblem(res, status, code);
    expectNoLeaks(JSON.stringify(res.body), code);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(liveRecords(data.dir)).toBe(before);
  });

  test("a 100 MB answer is refused (502 too large or 504 timeout) after a bounded prefix, and the server's RSS stays bounded", async () => {
    const before = liveRecords(data.dir);
    // Warm up so the baseline includes the code paths of a normal live fetch.
    expect((await call(server.baseUrl, `/v1/transcript/${freshId()}`, { key: data.key })).status).toBe(200);
    const rssBefore = server.rss();
    world.standin.setFault({ kind: "huge-body", bytes: 100 * MB });
    world.standin.stats.reset();
    // Eight at once: every fetch slot reading a huge body at the same time.
    const answers = await Promise.all(Array.from({ length: 8 }, () => timed(() => call(server.baseUrl, `/v1/transcript/${freshId()}`, { key: data.key }))));
    const rssPeakish = server.rss();
    for (const { value, ms } of answers) {
      expect([502, 504]).toContain(value.status);
      // The limit is per upstream call; the huge one is the third call of the fetch (watch, player, timedtext).
      expect(ms).toBeLessThan(3 * TIMEOUT_MS + SLACK_MS);
    }
    const sent = world.standin.stats.hugeBodyBytesSent;
    console.log(
      `100 MB answers ×8: codes ${[...new Set(answers.map((a) => a.value.body.code))].join(",")}; stand-in sent ${(sent / MB).toFixed(0)} MB in all; ` +
        `server RSS ${(rssBefore / MB).toFixed(0)} → ${(rssPeakish / MB).toFixed(0)} MB`,
    );
    expect(sent).toBeLessThan(8 * 100 * MB);
    // The client caps a body at 20 MB; eight fetches at once may hold that much each, not 100 MB.
    expect(rssPeakish - rssBefore).toBeLessThan(8 * 2 * 20 * MB);
    expect(liveRecords(data.dir)).toBe(before + 1);
    world.standin.setFault(null);
    expect((await call(server.baseUrl, `/v1/transcript/${freshId()}`, { key: data.key })).status).toBe(200);
  });

  test("a proxy that accepts connections and never answers gives 504 within the timeout, for a burst too", async () => {
    const before = liveRecords(proxyData.dir);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => timed(() => call(viaHangingProxy.baseUrl, `/v1/transcript/${freshId()}`, { key: proxyData.key }))),
    );
    for (const { value, ms } of answers) {
      expectProblem(value, 504, "upstream_timeout");
      expect(ms).toBeLessThan(2 * TIMEOUT_MS + SLACK_MS); // six fetches, LIVE_FETCH_CONCURRENCY 8: all at once
      expect(JSON.stringify(value.body)).not.toContain("127.0.0.1");
    }
    expect(liveRecords(proxyData.dir)).toBe(before);
    // And the server itself still answers at once.
    expect((await call(viaHangingProxy.baseUrl, "/v1/search?q=river", { key: proxyData.key })).status).toBe(200);
  });

  test("the server is still healthy and logged no unexpected error (only the upstream problems themselves)", async () => {
    expect((await call(server.baseUrl, "/healthz")).status).toBe(200);
    const errors = server.child.stdout().split("\n").filter((l) => l.includes('"level":"error"'));
    expect(errors.filter((l) => !l.includes('"name":"HttpError"'))).toEqual([]);
  });
});
