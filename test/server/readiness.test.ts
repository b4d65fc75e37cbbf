/** /readyz answers ready only once the first set is loaded and warmed, and not while the server is unhealthy. */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createApp } from "../../server/app/app.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { loadConfig } from "../../server/config.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { createLogger } from "../../server/log.js";
import { createMemoryRateLimiter } from "../../server/rate-limit/memory-rate-limiter.js";
import { ServiceState } from "../../server/service-state.js";
import { call } from "./helpers/http.js";
import { buildFixtureArtifacts, type Artifacts } from "./helpers/test-server.js";

let artifacts: Artifacts;
let dataDir: string;
beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  dataDir = mkdtempSync(path.join(tmpdir(), "readyz-"));
});
afterAll(() => {
  artifacts?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

test("/readyz is 503 until the set is marked loaded and warm, then 200, and 503 again when unhealthy; no key needed", async () => {
  const config = loadConfig({ DATA_DIR: dataDir, ACCESS_LOG: "off", LOG_LEVEL: "silent" });
  const keyStore = openKeyStore({ dataDir });
  const catalog = openCatalog({ dir: artifacts.dir });
  const state = new ServiceState();
  const server = createApp({
    config,
    catalog,
    keyStore,
    rateLimiter: createMemoryRateLimiter({ limit: 100 }),
    log: createLogger({ level: "silent" }),
    state,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const loading = await call(base, "/readyz");
    expect(loading.status).toBe(503);
    expect(loading.body).toEqual({ ready: false, status: "ok", reason: "the artifact set is still loading" });
    // Liveness is not readiness: /healthz answers 200 meanwhile.
    expect((await call(base, "/healthz")).status).toBe(200);

    // What main.ts does once the first set is warm.
    await catalog.warm();
    state.markLoaded();
    const ready = await call(base, "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ready: true, status: "ok" });

    // A shared service down: degraded, still ready, naming it; with an artifact reason too, both are given.
    state.serviceDown("redis", "redis unreachable: rate limits counted per process");
    const fallback = await call(base, "/healthz");
    expect(fallback.status).toBe(200);
    expect(fallback.body).toMatchObject({ status: "degraded", reason: "redis unreachable: rate limits counted per process", unreachable: ["redis"] });
    expect((await call(base, "/readyz")).body).toEqual({ ready: true, status: "degraded", reason: "redis unreachable: rate limits counted per process", unreachable: ["redis"] });
    state.degraded("serving an earlier build");
    expect((await call(base, "/healthz")).body.reason).toBe("serving an earlier build; redis unreachable: rate limits counted per process");
    state.serviceUp("redis");
    const back = await call(base, "/healthz");
    expect(back.body).toMatchObject({ status: "degraded", reason: "serving an earlier build" });
    expect(back.body.unreachable).toBeUndefined();
    expect((await call(base, "/readyz")).status).toBe(200);
    state.unhealthy("the database is damaged");
    const unhealthy = await call(base, "/readyz");
    expect(unhealthy.status).toBe(503);
    expect(unhealthy.body).toEqual({ ready: false, status: "unhealthy", reason: "the database is damaged" });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    catalog.close();
    keyStore.close();
  }
});
