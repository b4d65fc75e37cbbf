/**
 * The demo on `npm start` (setting DEMO). With DEMO=auto a DATA_DIR that was
 * never used (no published set, no API keys) gets the generated demo dataset
 * and a `pro` key printed at each start; any other DATA_DIR without a set,
 * or DEMO=off, stops the start with how to build a set. The demo key lives
 * only while the demo is served: a start on another set, or a switch to one,
 * revokes it.
 *
 * Keys named `demo` are the demo's own (the keys CLI refuses that name), so
 * they do not make a DATA_DIR "used": after its set was removed, a former
 * demo DATA_DIR gets the demo again, with a new key.
 *
 * The demo is built by `npm run pipeline -- demo` in a child process: the
 * build and the demo's text generator are the pipeline's, and a server that
 * loaded them would keep their code and the build's memory for its lifetime.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DEMO_DATASET } from "../../pipeline/artifact/contract/index.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/index.js";
import { DEMO_KEY_NAME, KEYS_DB_FILE, openKeyStore, type KeyStore } from "../auth/key-store.js";
import type { Config } from "../config.js";
import { errorFields, type Logger } from "../log.js";

export { DEMO_KEY_NAME };

/** The start cannot go on: there is no set to serve and the demo may not be built. The message says what to do. */
export class NoArtifactSetError extends Error {
  override name = "NoArtifactSetError";
}

const HOW_TO_BUILD = `Build and publish one into DATA_DIR first, then start again:
  npm run pipeline -- run --channels channels.txt    (crawl YouTube channels, then build and publish)
  npm run pipeline -- build --input records.jsonl    (from VideoRecord JSON lines)`;

/**
 * What DATA_DIR offers to serve: its published set, or the demo (to be built)
 * when DEMO allows it; else throws NoArtifactSetError. Creates nothing.
 */
export function servableSet(config: Pick<Config, "dataDir" | "demo">): "published" | "demo" {
  const { dataDir, demo } = config;
  if (existsSync(dataDirLayout(dataDir).current)) return "published";
  if (demo === "off") {
    throw new NoArtifactSetError(`No artifact set is published in ${dataDir} and DEMO=off.\n${HOW_TO_BUILD}`);
  }
  const keys = operatorKeyCount(dataDir);
  if (keys > 0) {
    throw new NoArtifactSetError(
      `No artifact set is published in ${dataDir}, and its ${KEYS_DB_FILE} holds ${keys} API key${keys === 1 ? "" : "s"}: ` +
        `the demo dataset is only built into an unused DATA_DIR.\n${HOW_TO_BUILD}\n` +
        `To try the demo instead, start with DATA_DIR set to an empty directory.`,
    );
  }
  return "demo";
}

/** Makes sure DATA_DIR has a set to serve, building the demo when `servableSet` says so. */
export async function ensureServableSet(config: Pick<Config, "dataDir" | "demo">, log: Logger): Promise<void> {
  if (servableSet(config) === "demo") await buildDemoInChild(config.dataDir, log);
}

/** `ensureServableSet`, but with no set to serve the process ends with the message and exit code 1. */
export async function ensureServableSetOrExit(config: Pick<Config, "dataDir" | "demo">, log: Logger): Promise<void> {
  try {
    await ensureServableSet(config, log);
  } catch (error) {
    if (error instanceof NoArtifactSetError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** The pipeline's command line, run as a process (never imported: see the top of this file). */
const PIPELINE_CLI = fileURLToPath(new URL("../../pipeline/cli.ts", import.meta.url));

/**
 * Runs `npm run pipeline -- demo` for `dataDir` in a child process, its
 * output lines logged at info; rejects when it fails. SIGTERM or SIGINT
 * meanwhile is passed on to the child (nothing is published; the partial
 * build is removed by the next build), and the start then fails.
 */
export function buildDemoInChild(dataDir: string, log: Logger): Promise<void> {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), PIPELINE_CLI, "demo"], {
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      const message = line.replace(/^\[pipeline\] /, "");
      lines.push(message);
      if (lines.length > 20) lines.shift();
      log.info(message, { source: "pipeline demo" });
    });
  }
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on("SIGTERM", forward);
  process.on("SIGINT", forward);
  return new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) return resolve();
      const how = signal !== null ? `was stopped by ${signal}` : `exited with code ${code}`;
      reject(new Error(`Building the demo dataset (npm run pipeline -- demo) ${how}:\n${lines.join("\n")}`));
    });
  }).finally(() => {
    process.off("SIGTERM", forward);
    process.off("SIGINT", forward);
  });
}

/** Keys in DATA_DIR's keys.db other than the demo's, revoked or not; 0 when there is no keys.db. */
function operatorKeyCount(dataDir: string): number {
  if (!existsSync(dataDirLayout(dataDir).keys)) return 0;
  const store = openKeyStore({ dataDir });
  try {
    return store.list().filter((record) => record.name !== DEMO_KEY_NAME).length;
  } finally {
    store.close();
  }
}

export function isDemoSet(manifest: { dataset: string }): boolean {
  return manifest.dataset === DEMO_DATASET;
}

/** Revokes the demo key(s) and creates a new one; the plaintext is never stored, so it is reissued at every start on the demo. */
export function issueDemoKey(keyStore: KeyStore, log: Logger): string {
  keyStore.revokeByName(DEMO_KEY_NAME);
  const { key, record } = keyStore.create({ plan: "pro", name: DEMO_KEY_NAME });
  log.info("demo key issued", { keyId: record.keyId });
  return key;
}

/** Revokes every active demo key because `dataset` (not the demo) is served now. Logs a failure rather than throwing. */
export function revokeDemoKeys(keyStore: KeyStore, dataset: string, log: Logger): void {
  try {
    const revoked = keyStore.revokeByName(DEMO_KEY_NAME);
    if (revoked > 0) log.info("demo key revoked: the served set is not the demo", { dataset, keys: revoked });
  } catch (error) {
    log.error("demo key could not be revoked", { dataset, ...errorFields(error) });
  }
}

/** What `npm start` prints on the demo dataset: the key (shown once) and a request to try. */
export function demoKeyBanner(url: string, demoKey: string): string {
  return (
    `\nServing the demo dataset at ${url}\nDemo API key (plan pro, replaced at every start):\n\n  ${demoKey}\n\n` +
    `Try: curl -H "X-API-Key: ${demoKey}" "${url}/v1/search?q=river"\n\n`
  );
}
