/**
 * `npm start`: load the config, make sure an artifact set is published (the
 * demo one on first start), open it with the live store and the live fetcher,
 * (re)issue the demo key when serving the demo data, listen, switch to a newly
 * published set on SIGHUP or when `current` changes, and stop gracefully on
 * SIGTERM/SIGINT.
 */
import { DEMO_DATASET, ensureDemoArtifacts } from "../pipeline/demo.js";
import { createApp } from "./app.js";
import { openKeyStore } from "./auth/key-store.js";
import { ConfigError, loadConfig } from "./config.js";
import { createLogger, errorFields } from "./log.js";
import { createMemoryRateLimiter } from "./rate-limit/memory-rate-limiter.js";
import { openRuntime, reloadOnSighup, warmLogged } from "./runtime.js";
import { closeGracefully } from "./shutdown.js";

export const DEMO_KEY_NAME = "demo";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger({ level: config.logLevel });
  await ensureDemoArtifacts(config.dataDir, (message) => log.info(message));

  const runtime = await openRuntime(config, { log });
  const catalog = runtime.catalogs.current;
  // Before listening: the first searches should not wait on storage for the index.
  await warmLogged(catalog, log);
  runtime.state.markLoaded();
  const keyStore = openKeyStore({ dataDir: config.dataDir });

  let demoKey: string | undefined;
  if (catalog.manifest.dataset === DEMO_DATASET) {
    // The plaintext is never stored, so the demo key is reissued (and printed) at every start.
    keyStore.revokeByName(DEMO_KEY_NAME);
    const { key, record } = keyStore.create({ plan: "pro", name: DEMO_KEY_NAME });
    demoKey = key;
    log.info("demo key issued", { keyId: record.keyId });
  }

  const server = createApp({
    config,
    catalog: runtime.catalogs,
    keyStore,
    ...(runtime.fetcher ? { transcriptSource: runtime.fetcher } : {}),
    rateLimiter: createMemoryRateLimiter({ limit: config.rateLimitPerMinute }),
    log,
    state: runtime.state,
    onDatabaseFault: (code, faulty) => void runtime.databaseFault(code, faulty),
  });

  server.on("error", (error) => {
    log.error("server error", errorFields(error));
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : config.port;
    const url = `http://${config.host}:${port}`;
    log.info("listening", {
      url,
      dataset: catalog.manifest.dataset,
      builtAt: catalog.manifest.builtAt,
      liveFetch: config.liveFetch ? config.youtubeOrigin : "off",
      proxies: config.youtubeProxyUrls.length,
    });
    if (demoKey !== undefined) {
      process.stdout.write(
        `\nServing the demo dataset at ${url}\nDemo API key (plan pro, replaced at every start):\n\n  ${demoKey}\n\n` +
          `Try: curl -H "X-API-Key: ${demoKey}" "${url}/v1/search?q=river"\n\n`,
      );
    }
  });

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal, graceMs: config.shutdownGraceMs });
    void closeGracefully(server, { graceMs: config.shutdownGraceMs })
      .then(async (clean) => {
        await runtime.close();
        keyStore.close();
        log.info("stopped", { clean });
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error("shutdown failed", errorFields(error));
        process.exit(1);
      });
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // SIGHUP: switch to the set `current` points at now (see server/live/README.md).
  reloadOnSighup(runtime);
}

main().catch((error: unknown) => {
  process.stderr.write(`Startup failed: ${error instanceof Error ? error.message : String(error)}\n`);
  createLogger({ level: "debug", write: (line) => process.stderr.write(line) }).error("startup failed", errorFields(error));
  process.exit(1);
});
