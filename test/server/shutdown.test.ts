/** Graceful shutdown: in-flight requests finish, new connections are refused, and the grace period bounds the wait. */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createApp } from "../../server/app.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { loadConfig } from "../../server/config.js";
import { openCatalog } from "../../server/data/artifact-catalog.js";
import { createLogger } from "../../server/log.js";
import { createMemoryRateLimiter } from "../../server/rate-limit/memory-rate-limiter.js";
import { closeGracefully } from "../../server/shutdown.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
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

async function start(delayMs: number) {
  const config = loadConfig({ DATA_DIR: dataDir, ACCESS_LOG: "off" });
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
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
});
