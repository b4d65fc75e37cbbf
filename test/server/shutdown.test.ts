/**
 * Graceful shutdown: in-flight requests finish, new connections are refused,
 * and the grace period bounds the wait; also for a worker's connections,
 * which its primary accepts and hands in (server/cluster/worker-link.ts).
 */
import net, { type AddressInfo } from "node:net";
import { Client } from "undici";
import { CHANNEL } from "../../server/cluster/messages.js";
import { connectWorker } from "../../server/cluster/worker-link.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createApp } from "../../server/app/app.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { loadConfig } from "../../server/config.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { createLogger } from "../../server/log.js";
import { createMemoryRateLimiter } from "../../server/rate-limit/memory-rate-limiter.js";
import { closeGracefully } from "../../server/start/shutdown.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PrimaryChannel } from "./helpers/primary-channel.js";
import { createStandInSource } from "./helpers/stand-in-source.js";
import { buildFixtureArtifacts, type Artifacts } from "./helpers/test-server.js";

let artifacts: Artifacts;
let dataDir: string;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  dataDir = mkdtempSync(path.join(tmpdir(), "shutdown-"));
});
afterAll(() => {
  artifacts.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * `start`, with the server as a worker's: a stand-in primary accepts each
 * connection paused and hands it over as node:cluster delivers it (the
 * message, the socket as its handle).
 */
async function startAsWorker(delayMs: number, env: Record<string, string> = {}) {
  const started = await start(delayMs, false, env);
  const channel = new PrimaryChannel();
  const link = connectWorker(channel.asProcess());
  const handedIn = link.serve(started.server, { dataset: "test", builtAt: "", usableKeys: 1 });
  const front = net.createServer({ pauseOnConnect: true }, (socket) => channel.deliver({ channel: CHANNEL, connection: true }, socket));
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  return { ...started, baseUrl, handedIn, sent: channel.sent, front, link };
}

async function start(delayMs: number, listen = true, env: Record<string, string> = {}) {
  const config = loadConfig({ DATA_DIR: dataDir, ACCESS_LOG: "off", ...env });
  const catalog = openCatalog({ dir: artifacts.dir });
  const keyStore = openKeyStore({ dataDir });
  const { key } = keyStore.create({ plan: "pro" });
  const source = createStandInSource({ delayMs });
  const server = createApp({
    config,
    catalog,
    keyStore,
    rateLimiter: createMemoryRateLimiter({ limit: 100 }),
    transcriptSource: source,
    log: createLogger({ level: "silent" }),
  });
  if (listen) await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = listen ? `http://127.0.0.1:${(server.address() as AddressInfo).port}` : "";
  /** Resolves once the request for `videoId` is being answered: a request still on its way would be an idle connection to close. */
  const inFlight = async (videoId: string): Promise<void> => {
    while (!source.calls.includes(videoId)) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  return { server, baseUrl, key, inFlight, close: () => (catalog.close(), keyStore.close()) };
}

describe("closeGracefully", () => {
  test("lets an in-flight request finish, then refuses new connections", async () => {
    const { server, baseUrl, key, inFlight, close } = await start(300);
    const request = fetch(`${baseUrl}/v1/transcript/slowvideo01`, { headers: { "X-API-Key": key } });
    await inFlight("slowvideo01");
    const closed = closeGracefully(server, { graceMs: 5_000 });
    const res = await request;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { videoId: string }).videoId).toBe("slowvideo01");
    expect(await closed).toBe(true);
    await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
    close();
  });

  test("cuts requests that outlast the grace period", async () => {
    const { server, baseUrl, key, inFlight, close } = await start(2_000);
    const request = fetch(`${baseUrl}/v1/transcript/slowvideo02`, { headers: { "X-API-Key": key } }).then(
      (r) => r.status,
      () => "cut",
    );
    await inFlight("slowvideo02");
    const started = Date.now();
    expect(await closeGracefully(server, { graceMs: 200 })).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await request).toBe("cut");
    close();
  });

  test("a worker's connections: the in-flight request finishes, the one kept alive is closed, and the close waits for both", async () => {
    const { server, baseUrl, key, inFlight, close, handedIn, sent, front, link } = await startAsWorker(300);
    const idle = new Client(baseUrl);
    const health = await idle.request({ method: "GET", path: "/healthz" });
    await health.body.dump();
    expect(health.statusCode).toBe(200);
    const request = fetch(`${baseUrl}/v1/transcript/slowvideo03`, { headers: { "X-API-Key": key } });
    await inFlight("slowvideo03");
    expect(handedIn.size).toBe(2);
    const started = Date.now();
    const closed = closeGracefully(server, { graceMs: 5_000 });
    const res = await request;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { videoId: string }).videoId).toBe("slowvideo03");
    expect(await closed).toBe(true);
    // Not held open until the keep-alive timeout: each connection is closed once its last response is sent.
    expect(Date.now() - started).toBeLessThan(2_000);
    // The close resolves once every connection is destroyed; each one's close event follows.
    for (let i = 0; handedIn.size > 0 && i < 100; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(handedIn.size).toBe(0);
    // The primary is told of each, so it deals the next connections by what is really open.
    expect(sent.filter((m) => "closed" in m).map((m) => ("closed" in m ? m.closed : 0))).toEqual([1, 1]);
    // And that this worker takes no more, once its stop began.
    expect(sent.filter((m) => "stopping" in m)).toHaveLength(1);
    // A connection handed in after the close is closed at once.
    await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
    await idle.close();
    await new Promise<void>((resolve) => front.close(() => resolve()));
    link.close();
    close();
  });

  test("a worker's connection whose headers never end is cut after HEADERS_TIMEOUT_MS, as on a server that listens", async () => {
    const { baseUrl, close, handedIn, front, link, server } = await startAsWorker(0, { HEADERS_TIMEOUT_MS: "300", REQUEST_TIMEOUT_MS: "600" });
    const { port } = new URL(baseUrl);
    const socket = net.connect(Number(port), "127.0.0.1");
    socket.on("error", () => undefined);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    const started = Date.now();
    const answer = await new Promise<string>((resolve) => {
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
      socket.once("close", () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await closeGracefully(server, { graceMs: 1_000 })).toBe(true);
    await new Promise<void>((resolve) => front.close(() => resolve()));
    link.close();
    close();
  });

  test("a worker's connections: requests that outlast the grace period are cut, and the close ends", async () => {
    const { server, baseUrl, key, inFlight, close, handedIn, front, link } = await startAsWorker(2_000);
    const request = fetch(`${baseUrl}/v1/transcript/slowvideo04`, { headers: { "X-API-Key": key } }).then(
      (r) => r.status,
      () => "cut",
    );
    await inFlight("slowvideo04");
    const started = Date.now();
    expect(await closeGracefully(server, { graceMs: 200 })).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await request).toBe("cut");
    await new Promise<void>((resolve) => front.close(() => resolve()));
    link.close();
    close();
  });
});
