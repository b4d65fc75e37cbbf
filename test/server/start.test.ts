/**
 * `npm start` as a process, around a server that already serves the demo set
 * (the small fixture, so starts stay short): a start that does not serve
 * changes nothing (its demo key, the keys in keys.db); a port in use is one
 * line, found before the loading, and the port is held from then on; `--help`
 * and a usage error exit at once. Stopping a real `npm start` in any way
 * stops its server, with the graceful drain. A start with no usable API key
 * says so.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { DEMO_DATASET } from "../../pipeline/corpus/demo-set.js";
import { runKeysCli } from "../../cli/keys.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { REPO_ROOT, startChild, TEST_SERVER_ENV, until, type Child } from "../reliability/helpers/child.js";
import { fixtureRecords } from "./helpers/fixture-records.js";
import { call, expectProblem } from "./helpers/http.js";

const dirs: string[] = [];
const children: Child[] = [];
/** Server processes started through npm, killed at the end if a test left one running. */
const serverPids: number[] = [];
const newDataDir = (): string => {
  const dir = mkdtempSync(path.join(tmpdir(), "start-"));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const pid of serverPids) if (running(pid)) process.kill(pid, "SIGKILL");
  for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
  await Promise.all(children.map((c) => c.exited));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `node --import tsx server/main.ts` (what `npm start` runs) over `dataDir`. */
const start = (dataDir: string, env: Record<string, string> = {}, args: string[] = []): Child => {
  const child = startChild("server/main.ts", args, { ...TEST_SERVER_ENV, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", ACCESS_LOG: "off", ...env });
  children.push(child);
  return child;
};

/** Starts a server and waits until it listens (and printed its demo key, on the demo set). */
async function serve(dataDir: string, env: Record<string, string> = {}): Promise<{ child: Child; url: string; port: number; key: string | undefined }> {
  const child = start(dataDir, env);
  let url = "";
  await until(
    () => {
      if (child.process.exitCode !== null) throw new Error(`server exited: ${child.stderr()}${child.stdout()}`);
      url = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(child.stdout())?.[1] ?? "";
      return url !== "" && (!child.stdout().includes("demo key issued") || child.stdout().includes("Try: curl"));
    },
    60_000,
    "the server to listen",
  );
  return { child, url, port: Number(new URL(url).port), key: /^ {2}(tsk_\S+)$/m.exec(child.stdout())?.[1] };
}

/** `npm run keys -- list`: every key of keys.db, revoked or not. */
function keyList(dataDir: string): string {
  let out = "";
  expect(runKeysCli(["list"], { env: { DATA_DIR: dataDir }, stdout: (text) => (out += text) })).toBe(0);
  return out;
}

describe("a start that does not serve changes nothing", () => {
  let dataDir: string;
  let running: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    dataDir = newDataDir();
    await buildArtifacts({ records: fixtureRecords(), outDir: path.join(dataDir, "current"), dataset: DEMO_DATASET });
    running = await serve(dataDir);
    expect(running.key).toMatch(/^tsk_/);
  }, 90_000);
  afterAll(async () => {
    running.child.process.kill("SIGTERM");
    await running.child.exited;
  });

  test.each([{ WORKERS: "1" }, { WORKERS: "2" }])(
    "a second start on the running server's port (WORKERS=$WORKERS) exits 1 at once with one line naming HOST:PORT, and the running server's demo key still works",
    async (env) => {
      const keys = keyList(dataDir);
      const second = start(dataDir, { ...env, PORT: String(running.port) });
      const { code } = await second.exited;
      expect(code).toBe(1);
      const lines = second.stderr().trim().split("\n");
      expect(lines, second.stderr()).toHaveLength(1);
      expect(lines[0]).toContain(`127.0.0.1:${running.port}`);
      expect(lines[0]).toMatch(/in use/);
      expect(lines[0]).toMatch(/PORT/);
      expect(lines[0]).toMatch(/HOST/);
      // Found before the loading: nothing was opened, verified or warmed, and no key was printed.
      expect(second.stdout()).not.toMatch(/"msg":"(search index in memory|serving paths warmed|demo key issued|demo key revoked|listening)"/);
      expect(second.stdout()).not.toContain("tsk_");
      expect(keyList(dataDir)).toBe(keys);
      expect((await call(running.url, "/v1/stats", { key: running.key })).status).toBe(200);
    },
    60_000,
  );

  test.each([["--help"], ["--nonsense"]])("npm start -- %s on the running server's DATA_DIR exits at once and changes no key", async (arg) => {
    const keys = keyList(dataDir);
    const other = start(dataDir, {}, [arg]);
    // Killed if it starts serving instead: its code is then null.
    const timer = setTimeout(() => other.process.kill("SIGKILL"), 30_000);
    const { code } = await other.exited;
    clearTimeout(timer);
    expect(code).toBe(arg === "--help" ? 0 : 2);
    expect(other.stdout() + other.stderr()).not.toContain("tsk_");
    expect(keyList(dataDir)).toBe(keys);
    expect((await call(running.url, "/v1/stats", { key: running.key })).status).toBe(200);
  }, 60_000);
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** How a connection to `port` ends: its error code, or "open" if it is still open after `ms`. */
function connectionEnd(port: number, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const timer = setTimeout(() => {
      socket.destroy();
      resolve("open");
    }, ms);
    socket.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code ?? error.message);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve("closed");
    });
  });
}

test("a start still loading holds its port: a second start there fails at once, and a connection is reset, not left waiting", async () => {
  const dataDir = newDataDir();
  await buildArtifacts({ records: fixtureRecords(), outDir: path.join(dataDir, "current"), dataset: "fixture" });
  const port = String(await freePort());
  // Waits for PostgreSQL (nothing listens on that port) before it opens anything: a start that stays in its loading.
  const closed = await freePort();
  const loading = start(dataDir, { PORT: port, DATABASE_URL: `postgres://transcripts@127.0.0.1:${closed}/transcripts` });
  await until(() => loading.stdout().includes("postgresql not reachable at start"), 30_000, "the start to wait for PostgreSQL");
  expect(await connectionEnd(Number(port), 5_000)).toBe("ECONNRESET");
  const second = start(dataDir, { PORT: port });
  expect((await second.exited).code).toBe(1);
  expect(second.stderr()).toMatch(new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use[^\\n]*PORT \\(or HOST\\)[^\\n]*\\n$`));
  loading.process.kill("SIGTERM");
  expect((await loading.exited).code).toBe(0);
}, 60_000);

/** Whether `pid` runs (a zombie, dead but not yet reaped, does not). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

describe("stopping npm start stops its server", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = newDataDir();
    await buildArtifacts({ records: fixtureRecords(), outDir: path.join(dataDir, "current"), dataset: "fixture" });
  });

  test.each([
    { signal: "SIGTERM", workers: "1" },
    { signal: "SIGINT", workers: "1" },
    { signal: "SIGKILL", workers: "1" },
    { signal: "SIGTERM", workers: "2" },
    { signal: "SIGKILL", workers: "2" },
  ] as const)(
    "$signal to the npm process (WORKERS=$workers): the server drains, exits and frees the port",
    async ({ signal, workers }) => {
      // The real thing: npm runs the start script through sh, as from a terminal, a process manager or a container.
      const npm = spawn("npm", ["start"], {
        cwd: REPO_ROOT,
        env: { ...process.env, ...TEST_SERVER_ENV, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", ACCESS_LOG: "off", WORKERS: workers },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      npm.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      npm.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      const npmExited = new Promise((resolve) => npm.on("exit", resolve));
      await until(() => /"msg":"listening"/.test(output) || npm.exitCode !== null, 60_000, "npm start to listen");
      const listening = /"msg":"listening","url":"(http:\/\/[^"]+)".*?"pid":(\d+)/.exec(output);
      expect(listening, output).not.toBeNull();
      const url = listening?.[1] as string;
      const pid = Number(listening?.[2]);
      // With WORKERS > 1, `pid` is the primary's, and each worker is a process too.
      const pids = [pid, ...[...output.matchAll(/"msg":"worker listening","worker":\d+,"pid":(\d+)/g)].map((m) => Number(m[1]))];
      expect(pids).toHaveLength(workers === "1" ? 1 : 3);
      serverPids.push(...pids);
      expect(pid).not.toBe(npm.pid);
      expect((await call(url, "/healthz")).status).toBe(200);

      npm.kill(signal);
      await npmExited;
      await until(() => !pids.some(running), 20_000, `the server's processes (${pids.join(", ")}) to exit after ${signal} to npm`);
      // Stopped by its graceful drain, not cut off.
      expect(output).toMatch(/"msg":"shutting down"/);
      expect(output).toMatch(/"msg":"stopped","clean":true/);
      expect(await connectionEnd(Number(new URL(url).port), 2_000)).toBe("ECONNREFUSED");
    },
    90_000,
  );
});

describe("a start with no usable API key says so", () => {
  /** The log lines that say there is no usable key. */
  const noKeyLines = (output: string) => output.split("\n").filter((line) => line.includes("no usable API key"));
  const keysAre = (dataDir: string, keys: ("active" | "revoked" | "expired")[]) => {
    const store = openKeyStore({ dataDir });
    for (const kind of keys) {
      const { record } = store.create({ plan: "free", name: kind, ...(kind === "expired" ? { expiresAt: "2020-01-01T00:00:00Z" } : {}) });
      if (kind === "revoked") store.revoke(record.keyId);
    }
    store.close();
  };
  const servedSet = async (dataset: string): Promise<string> => {
    const dataDir = newDataDir();
    await buildArtifacts({ records: fixtureRecords(), outDir: path.join(dataDir, "current"), dataset });
    return dataDir;
  };

  test.each([
    { keys: [], workers: "1" },
    { keys: ["revoked", "expired"], workers: "1" },
    { keys: [], workers: "2" },
  ] as const)("keys $keys (WORKERS=$workers): one warning naming npm run keys -- create", async ({ keys, workers }) => {
    // As after `npm run pipeline -- build --input` into a fresh DATA_DIR.
    const dataDir = await servedSet("custom");
    keysAre(dataDir, [...keys]);
    const served = await serve(dataDir, { WORKERS: workers });
    // The warning follows the listening line, and may reach the pipe after it.
    await until(() => noKeyLines(served.child.stdout()).length > 0, 10_000, "the warning").catch(() => undefined);
    const lines = noKeyLines(served.child.stdout());
    expect(lines, served.child.stdout()).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: "warn" });
    expect(lines[0]).toContain("npm run keys -- create");
    expectProblem(await call(served.url, "/v1/stats", { key: "tsk_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }), 401, "invalid_api_key");
    served.child.process.kill("SIGTERM");
    expect((await served.child.exited).code).toBe(0);
  }, 60_000);

  test.each([
    { dataset: "custom", keys: ["active"] as const },
    // The demo key is the usable one.
    { dataset: DEMO_DATASET, keys: [] as const },
  ])("not with a usable key ($dataset set, keys $keys)", async ({ dataset, keys }) => {
    const dataDir = await servedSet(dataset);
    keysAre(dataDir, [...keys]);
    const served = await serve(dataDir);
    expect(noKeyLines(served.child.stdout())).toEqual([]);
    served.child.process.kill("SIGTERM");
    expect((await served.child.exited).code).toBe(0);
  }, 60_000);
});
