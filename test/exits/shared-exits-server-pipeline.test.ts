/**
 * One view of the exits across real processes: a pipeline run (a child
 * process, `npm run pipeline -- run`) and a server (wired as `npm start`
 * wires it, on port 0) send through the same loopback exit proxy to the
 * stand-in with YouTube's limits on. Once the run has met a block, the
 * server's /metrics shows the exit cooling, and a live fetch of a missing
 * transcript is answered 502 upstream_rate_limited at once, without a request
 * reaching the stand-in: shared through the host's `DATA_DIR/exits.db`, and
 * through Redis when the two have different DATA_DIRs (skipped with one line
 * without Redis).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startExitProxy, type ExitProxy } from "../../scripts/youtube-standin/exit-proxy.js";
import { connectRedis, type RedisConnection } from "../../server/coordination/redis-client.js";
import { createLogger } from "../../server/log.js";
import { startLiveServer, type LiveServer } from "../live/helpers/live-server.js";
import { englishVideoIds, startSyntheticStandin, writeChannelList, type SyntheticStandin } from "../pipeline/helpers/synthetic-standin.js";
import { startChild, until, type Child } from "../reliability/helpers/child.js";
import { call } from "../server/helpers/http.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";

const redisUp = await redisAvailable("exit state shared by a server and a pipeline through Redis");
/** Six requests a minute per address, then 20 s of rest announced with Retry-After. */
const LIMITS = { budget: 6, windowMs: 60_000, coolDownMs: 20_000, answer: "rate-limit" } as const;
/** One request in flight per exit on both sides, so nothing is on its way when a block is answered. */
const ONE_AT_A_TIME = { YOUTUBE_EXIT_IN_FLIGHT: "1", YOUTUBE_EXIT_COOL_DOWN_SECONDS: "20" };

let world: SyntheticStandin;
let exit: ExitProxy;
const dirs: string[] = [];
const children: Child[] = [];
const servers: LiveServer[] = [];
const connections: RedisConnection[] = [];

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 30, channels: 1, seed: 31 });
  exit = await startExitProxy({ localAddress: "127.0.0.70" });
});
afterEach(async () => {
  for (const child of children.splice(0)) child.process.kill("SIGKILL");
  for (const server of servers.splice(0)) await server.close();
  for (const connection of connections.splice(0)) connection.disconnect();
  world.standin.setLimits(null);
  world.standin.resetLimits();
  world.standin.stats.reset();
});
afterAll(async () => {
  await exit?.close();
  await world?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "shared-exits-"));
  dirs.push(dir);
  return dir;
}

/** The value of `transcript_exit_state{exit, state}` in the server's /metrics. */
async function exitState(server: LiveServer, state: string): Promise<number | undefined> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`transcript_exit_state{exit="${exit.url}",state="${state}"}`));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

async function blockedByPipelineThenAskServer(server: LiveServer, pipelineEnv: Record<string, string>): Promise<void> {
  const list = writeChannelList(join(tempDir(), "channels.txt"), world.corpus);
  expect(await exitState(server, "ok")).toBe(1);
  world.standin.setLimits(LIMITS);
  const pipeline = startChild("pipeline/cli.ts", ["run", "--channels", list, "--origin", world.standin.origin], {
    YOUTUBE_PROXY_URLS: exit.url,
    ...ONE_AT_A_TIME,
    ...pipelineEnv,
  });
  children.push(pipeline);
  await until(() => world.standin.limitsReport().totals.blocked > 0, 60_000, "the pipeline to meet a block");
  // The server has sent nothing yet; it learns of the block from the shared state alone.
  await until(async () => (await exitState(server, "cooling")) === 1, 5_000, "the server's /metrics to show the exit cooling");

  const videoId = englishVideoIds(world.corpus)();
  const requestsBefore = world.standin.limitsReport().totals.requests;
  const started = Date.now();
  const res = await call(server.baseUrl, `/v1/transcript/${videoId}`, { key: server.key });
  expect(res.status).toBe(502);
  expect(res.body.code).toBe("upstream_rate_limited");
  expect(Date.now() - started).toBeLessThan(2_000);
  // Nothing went upstream for it, and nothing through the exit while it rests.
  expect(world.standin.stats.byVideo[videoId]?.player ?? 0).toBe(0);
  expect(world.standin.limitsReport().totals.requests).toBe(requestsBefore);
  expect(world.standin.limitsReport().totals.duringAnnouncedCoolDown).toBe(0);

  pipeline.process.kill("SIGTERM");
  await pipeline.exited;
}

describe("a block the pipeline met rests the exit for the server's live fetch", () => {
  it("on one host: through DATA_DIR/exits.db", async () => {
    const server = await startLiveServer({ standin: world.standin, env: { YOUTUBE_PROXY_URLS: exit.url, ...ONE_AT_A_TIME } });
    servers.push(server);
    await blockedByPipelineThenAskServer(server, { DATA_DIR: server.dataDir });
  }, 90_000);

  it.skipIf(!redisUp)("across hosts: through Redis, each with a DATA_DIR of its own", async () => {
    const prefix = `test-shared-exits-${process.pid}-${Date.now().toString(36)}:`;
    const connection = connectRedis({ url: REDIS_URL, log: createLogger({ level: "error", write: () => undefined }), deadlineMs: 1_000 });
    connections.push(connection);
    await until(() => connection.usable(), 5_000, "Redis to answer");
    const server = await startLiveServer({
      standin: world.standin,
      env: { YOUTUBE_PROXY_URLS: exit.url, REDIS_KEY_PREFIX: prefix, ...ONE_AT_A_TIME },
      runtime: { redis: connection },
    });
    servers.push(server);
    await blockedByPipelineThenAskServer(server, { DATA_DIR: tempDir(), REDIS_URL, REDIS_KEY_PREFIX: prefix });
    await connection.redis.del(`${prefix}exit:${exit.url}`);
  }, 90_000);
});
