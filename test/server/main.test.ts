/**
 * `npm start` end to end: a real process over a DATA_DIR whose published set is
 * the demo dataset (built here from the small fixture so the test stays fast):
 * it prints a working demo key, replaces it at the next start, and exits 0 on SIGTERM.
 * DEMO: an empty DATA_DIR under DEMO=off, or one with keys and no set, stops the
 * start; the demo key is revoked once a set that is not the demo is served.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { DEMO_DATASET } from "../../pipeline/corpus/demo-set.js";
import { newBuildDir, publishBuild } from "../../pipeline/publish/publish.js";
import { runKeysCli } from "../../cli/keys.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { startChild, until, type Child } from "../reliability/helpers/child.js";
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

/** Runs the command of package.json's `start` script (`node` being this node, others from node_modules/.bin; the shell's `exec` is what running it directly does), so the signalled process is the one `npm start` runs. */
function spawnStart(env: NodeJS.ProcessEnv): ChildProcess {
  const script = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
  const [command = "", ...args] = script.replace(/^exec /, "").split(" ");
  return spawn(command === "node" ? process.execPath : path.join(ROOT, "node_modules/.bin", command), args, {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", ACCESS_LOG: "off", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function startMain(env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawnStart(env);
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
    // Answering before ready: ready once the search memory is filled and the practice requests are done, which it logs.
    await until(() => first.output().includes('"msg":"ready"'), 20_000, "the ready line");
    const ready = await call(first.url, "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ready: true, status: "ok" });
    expect(first.output().indexOf('"msg":"serving paths warmed"')).toBeLessThan(first.output().indexOf('"msg":"ready"'));
    const metrics = await fetch(`${first.url}/metrics`);
    expect(metrics.status).toBe(200);
    const exposed = await metrics.text();
    expect(exposed).toMatch(/^transcript_artifact_set_info\{build_id="current",dataset="demo",.*\} 1$/m);
    // The practice requests (below) are not the service's: its metrics never saw a search.
    expect(exposed).not.toMatch(/^http_requests_total\{[^}]*\/v1\/search/m);
    expect(await stop(first.child)).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    // The full-text index was read into memory before the server was ready.
    const warmed = first.output().indexOf('"msg":"search index in memory"');
    expect(warmed).toBeGreaterThan(-1);
    expect(warmed).toBeLessThan(first.output().indexOf('"msg":"ready"'));
    expect(first.output()).toMatch(/"msg":"most viewed transcripts in memory".*"transcripts":[1-9]/);
    expect(first.output()).toMatch(/"msg":"word bitmaps in memory".*"words":[1-9]/);
    // Then practice search requests over loopback, every one answered, before it was ready.
    const practiced = first.output().indexOf('"msg":"serving paths warmed"');
    expect(practiced).toBeGreaterThan(warmed);
    expect(practiced).toBeLessThan(first.output().indexOf('"msg":"ready"'));
    expect(first.output()).toMatch(/"msg":"serving paths warmed","requests":[1-9][0-9]*,"failed":0/);

    // Told not to (SEARCH_WORD_BITMAPS=off), it reads no bitmaps.
    const second = await startMain({ SEARCH_WORD_BITMAPS: "off" });
    expect(second.key).not.toBe(first.key);
    expectProblem(await call(second.url, "/v1/stats", { key: first.key }), 401, "invalid_api_key");
    expect((await call(second.url, "/v1/stats", { key: second.key })).status).toBe(200);
    expect(await stop(second.child)).toBe(0);
    expect(second.output()).not.toContain("word bitmaps in memory");
  });

  // As on a loaded machine: the server gets no CPU for a while when SIGTERM arrives. Nothing between the
  // signal and the server may give up on it (tsx's CLI would SIGKILL it after 60 ms and exit 143).
  test("stops cleanly on SIGTERM even when the server gets no CPU for a while", async () => {
    const started = await startMain();
    const pid = Number(/"msg":"listening".*?"pid":(\d+)/.exec(started.output())?.[1]);
    expect(pid).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => started.child.on("exit", (code) => resolve(code)));
    process.kill(pid, "SIGSTOP");
    try {
      started.child.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      // Throws ESRCH if something killed the frozen server meanwhile; the exit code below then says how.
      try {
        process.kill(pid, "SIGCONT");
      } catch {}
    }
    expect(await exited).toBe(0);
    expect(started.output()).toMatch(/"msg":"stopped","clean":true/);
  });

  test("a SIGTERM during start-up stops it cleanly with exit 0", async () => {
    // A PostgreSQL that does not answer (nothing listens on port 1): the start waits for it, not listening meanwhile.
    const child = spawnStart({ DATABASE_URL: "postgres://127.0.0.1:1/transcripts" });
    let output = "";
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // The first log line comes from the start-up work (the wait for PostgreSQL), long before it listens.
    await new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        const first = output === "";
        output += chunk.toString("utf8");
        if (first) {
          child.kill("SIGTERM");
          resolve();
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
    });
    expect(await exited).toBe(0);
    expect(output).toMatch(/"msg":"shutting down","signal":"SIGTERM","during":"start-up"/);
    expect(output).toMatch(/"msg":"stopped","clean":true/);
    expect(output).not.toContain('"msg":"listening"');
  });

  test("refuses to start on a bad setting, naming it", async () => {
    const child = spawnStart({ PORT: "not-a-port" });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("PORT: must be a whole number");
  });
});

describe("DEMO and the demo key", () => {
  const dirs: string[] = [];
  const children: Child[] = [];
  const newDataDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "main-demo-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const startIn = (dir: string, env: Record<string, string> = {}): Child => {
    const child = startChild("server/main.ts", [], { DATA_DIR: dir, PORT: "0", HOST: "127.0.0.1", ACCESS_LOG: "off", ...env });
    children.push(child);
    return child;
  };
  /** Starts the server and waits until it listens; `key` is the demo key it printed, if any. */
  const serve = async (dir: string): Promise<{ child: Child; url: string; key: string | undefined }> => {
    const child = startIn(dir);
    let url = "";
    await until(
      () => {
        if (child.process.exitCode !== null) throw new Error(`server exited: ${child.stderr()}${child.stdout()}`);
        url = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(child.stdout())?.[1] ?? "";
        return url !== "" && (!child.stdout().includes('"msg":"demo key issued"') || child.stdout().includes("Try: curl"));
      },
      60_000,
      "the server to listen",
    );
    return { child, url, key: /^ {2}(tsk_\S+)$/m.exec(child.stdout())?.[1] };
  };
  const stopped = async (child: Child) => {
    child.process.kill("SIGTERM");
    expect((await child.exited).code).toBe(0);
  };
  /** The demo key's row in `npm run keys -- list`. */
  const demoRow = (dir: string, keyId: string): string => {
    let out = "";
    expect(runKeysCli(["list"], { env: { DATA_DIR: dir }, stdout: (text) => (out += text) })).toBe(0);
    return out.split("\n").find((line) => line.startsWith(keyId)) ?? "";
  };
  const publish = async (dir: string, dataset: string) => {
    const build = newBuildDir(dir);
    await buildArtifacts({ records: fixtureRecords(), outDir: build, dataset });
    await publishBuild(dir, build);
  };

  test("DEMO=off on an empty DATA_DIR exits 1, saying how to build a set, and builds nothing", async () => {
    const dir = newDataDir();
    const child = startIn(dir, { DEMO: "off" });
    expect((await child.exited).code).toBe(1);
    expect(child.stderr()).toContain("No artifact set is published in");
    expect(child.stderr()).toContain("DEMO=off");
    expect(child.stderr()).toContain("npm run pipeline -- build --input");
    expect(child.stderr()).toContain("npm run pipeline -- run --channels");
    expect(child.stdout()).not.toContain("tsk_");
    expect(existsSync(path.join(dir, "current"))).toBe(false);
    expect(existsSync(path.join(dir, "keys.db"))).toBe(false);
  });

  test("DEMO=auto on a DATA_DIR with API keys but no set refuses too, and mints no key", async () => {
    const dir = newDataDir();
    const store = openKeyStore({ dataDir: dir });
    store.create({ plan: "pro", name: "acme" });
    store.close();
    const child = startIn(dir);
    expect((await child.exited).code).toBe(1);
    expect(child.stderr()).toContain("holds 1 API key");
    expect(child.stderr()).toContain("npm run pipeline -- build --input");
    expect(existsSync(path.join(dir, "current"))).toBe(false);
    const reopened = openKeyStore({ dataDir: dir });
    expect(reopened.list().map((r) => r.name)).toEqual(["acme"]);
    reopened.close();
  });

  test("the demo key is revoked when a real publish switches the running server to another set, and at a start on another set", async () => {
    const dir = newDataDir();
    await publish(dir, DEMO_DATASET);

    // While running: `npm run pipeline -- build` publishes into the same DATA_DIR.
    const first = await serve(dir);
    const key = first.key as string;
    expect(key).toMatch(/^tsk_/);
    expect((await call(first.url, "/v1/stats", { key })).status).toBe(200);
    const input = path.join(dir, "records.jsonl");
    writeFileSync(input, [...fixtureRecords()].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const pipeline = startChild("pipeline/cli.ts", ["build", "--input", input], { DATA_DIR: dir });
    expect((await pipeline.exited).code, pipeline.stderr()).toBe(0);
    await until(() => first.child.stdout().includes('"msg":"artifact set switched"'), 30_000, "the switch");
    expectProblem(await call(first.url, "/v1/stats", { key }), 401, "invalid_api_key");
    expect(first.child.stdout()).toMatch(/"msg":"demo key revoked: the served set is not the demo","dataset":"custom"/);
    const keyId = key.split("_")[1] as string;
    expect(demoRow(dir, keyId)).toMatch(/^\S+\s+demo\s+pro\s+\S+\s+-\s+\d{4}-\d{2}-\d{2}T\S+Z$/);
    await stopped(first.child);

    // After a restart: the demo is served again (a new key), then the server stops and a set that is not the demo is
    // published while it is down; the next start revokes the key before it listens.
    await publish(dir, DEMO_DATASET);
    const second = await serve(dir);
    const secondKey = second.key as string;
    expect(secondKey).toMatch(/^tsk_/);
    expect(secondKey).not.toBe(key);
    await stopped(second.child);
    const secondId = secondKey.split("_")[1] as string;
    expect(demoRow(dir, secondId)).toMatch(/\s-$/);
    await publish(dir, "test");
    const third = await serve(dir);
    expect(third.key).toBeUndefined();
    expect(third.child.stdout()).not.toContain("Serving the demo dataset");
    expectProblem(await call(third.url, "/v1/stats", { key: secondKey }), 401, "invalid_api_key");
    expect(demoRow(dir, secondId)).toMatch(/\d{4}-\d{2}-\d{2}T\S+Z$/);
    await stopped(third.child);
  });
});
