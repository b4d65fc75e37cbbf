/**
 * `npm start` end to end: a real process over a DATA_DIR whose published set is
 * the demo dataset (built here from the small fixture so the test stays fast):
 * it prints a working demo key, replaces it at the next start, and exits 0 on SIGTERM.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildArtifacts } from "../../pipeline/build.js";
import { DEMO_DATASET } from "../../pipeline/demo.js";
import { fixtureRecords } from "./helpers/fixture-records.js";
import { call, expectProblem } from "./helpers/http.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "main-"));
  await buildArtifacts({ records: fixtureRecords(), outDir: path.join(dataDir, "current"), dataset: DEMO_DATASET });
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  url: string;
  key: string;
  output: () => string;
}

function startMain(env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["server/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", ACCESS_LOG: "off", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`main did not start:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const url = /Serving the demo dataset at (http:\/\/\S+)/.exec(output)?.[1];
      const key = /^ {2}(tsk_\S+)$/m.exec(output)?.[1];
      if (url !== undefined && key !== undefined && output.includes("Try: curl")) {
        clearTimeout(timer);
        resolve({ child, url, key, output: () => output });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`main exited with ${code}:\n${output}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.on("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });
}

describe("npm start", () => {
  test("serves the demo set with a fresh demo key each start, and stops cleanly on SIGTERM", async () => {
    const first = await startMain();
    expect((await call(first.url, "/v1/stats", { key: first.key })).status).toBe(200);
    const health = await call(first.url, "/healthz");
    expect(health.body).toMatchObject({ status: "ok", schemaVersion: 1 });
    expect(await stop(first.child)).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    // The full-text index was read into memory before the server listened.
    const warmed = first.output().indexOf('"msg":"search index in memory"');
    expect(warmed).toBeGreaterThan(-1);
    expect(warmed).toBeLessThan(first.output().indexOf('"msg":"listening"'));
    expect(first.output()).toMatch(/"msg":"most viewed transcripts in memory".*"transcripts":[1-9]/);
    expect(first.output()).toMatch(/"msg":"word bitmaps in memory".*"words":[1-9]/);

    // Told not to (SEARCH_WORD_BITMAPS=off), it reads no bitmaps.
    const second = await startMain({ SEARCH_WORD_BITMAPS: "off" });
    expect(second.key).not.toBe(first.key);
    expectProblem(await call(second.url, "/v1/stats", { key: first.key }), 401, "invalid_api_key");
    expect((await call(second.url, "/v1/stats", { key: second.key })).status).toBe(200);
    expect(await stop(second.child)).toBe(0);
    expect(second.output()).not.toContain("word bitmaps in memory");
  });

  test("refuses to start on a bad setting, naming it", async () => {
    const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["server/main.ts"], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: "not-a-port" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("PORT: must be a whole number");
  });
});
