/**
 * The real server (`server/main.ts`) as a child process on 127.0.0.1, so its
 * RSS is its own and the bench's load generator does not share its event
 * loop. Started with the rate limit raised and the access log off: the bench
 * measures search and serving, not stdout throughput of the access log.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { join } from "node:path";
import { REPO_ROOT } from "./paths.js";

export interface ServerProcess {
  origin: string;
  pid: number;
  /** Milliseconds from spawn to the first 200 answer to the probe path. */
  startMs: number;
  /** Milliseconds from spawn to the first 200 from /readyz (its search memory filled), and with WORKERS > 1 every worker's `ready` line. */
  readyMs: number;
  rssBytes(): number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** RSS of a process and all its descendants (a cluster's workers), in bytes. */
export function treeRssOf(pid: number): number {
  return treeSum(pid, rssOf);
}

/** `of` summed over a process and all its descendants. */
function treeSum(pid: number, of: (pid: number) => number): number {
  let total = of(pid);
  for (const child of childrenOf(pid)) {
    try {
      total += treeSum(child, of);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** The processes `pid` started (/proc/<pid>/task/<tid>/children). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number));
    } catch {
      // the thread ended meanwhile
    }
  }
  return children;
}

/**
 * Proportional set size of a process and all its descendants, in bytes (/proc/<pid>/smaps_rollup): each
 * page shared by several processes (a file's pages in the page cache that several map) counted once in
 * all, split among them, where RSS counts it in full for each. 0 where the kernel does not tell.
 */
export function treePssOf(pid: number): number {
  return treeSum(pid, pssOf);
}

function pssOf(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident set size of a process from /proc (Linux), in bytes. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

export async function startServer(options: {
  dataDir: string;
  logPath: string;
  /** A path (no key sent) that must answer 200 before the server counts as started, e.g. /healthz. */
  probePath: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Another checkout of this repository to run the server from (`--compare-tree`); default this one. */
  repoRoot?: string;
}): Promise<ServerProcess> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const fd = openSync(options.logPath, "a");
  const logOffset = statSync(options.logPath).size;
  const started = performance.now();
  const root = options.repoRoot ?? REPO_ROOT;
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", join(root, "server/main.ts")], {
    cwd: root,
    stdio: ["ignore", fd, fd],
    env: {
      ...process.env,
      DATA_DIR: options.dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      RATE_LIMIT_PER_MINUTE: "1000000",
      ACCESS_LOG: "off",
      LOG_LEVEL: "warn",
      ...options.env,
    },
  });
  closeSync(fd);
  let exited: string | undefined;
  child.once("exit", (code, signal) => {
    exited = `${signal ?? code}`;
  });
  const deadline = started + (options.timeoutMs ?? 600_000);
  const probe = `${origin}${options.probePath}`;
  for (;;) {
    if (exited !== undefined) throw new Error(`the server exited (${exited}) before answering; see ${options.logPath}`);
    if (performance.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the server did not answer within ${options.timeoutMs ?? 600_000} ms; see ${options.logPath}`);
    }
    try {
      // Closed after each answer: an idle connection left open counts for a worker the front door then deals fewer to.
      const res = await request(probe, { reset: true });
      await res.body.text();
      if (res.statusCode === 200) break;
    } catch {
      // Not listening yet.
    }
    await sleep(25);
  }
  const startMs = performance.now() - started;
  // The server answers before it is ready; the phases measure a ready one.
  // With WORKERS > 1 /readyz is one worker's answer: each worker's `ready` line is waited for too, where the log level shows it.
  const logsInfo = ["info", "debug"].includes(options.env?.LOG_LEVEL ?? "warn");
  const workers = logsInfo ? Number(options.env?.WORKERS ?? 1) : 1;
  for (;;) {
    if (exited !== undefined) throw new Error(`the server exited (${exited}) before it was ready; see ${options.logPath}`);
    if (performance.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the server was not ready within ${options.timeoutMs ?? 600_000} ms; see ${options.logPath}`);
    }
    if ((await answers200(`${origin}/readyz`)) && (workers <= 1 || readyLines(options.logPath, logOffset) >= workers)) break;
    await sleep(25);
  }
  const readyMs = performance.now() - started;
  const pid = child.pid!;
  return {
    origin,
    pid,
    startMs,
    readyMs,
    rssBytes: () => rssOf(pid),
    stop: async () => {
      if (exited !== undefined) return;
      const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

async function answers200(url: string): Promise<boolean> {
  try {
    const res = await request(url, { reset: true });
    await res.body.text();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

/** The `ready` lines the server's log holds past `offset` (each worker logs one; LOG_LEVEL info). */
function readyLines(logPath: string, offset: number): number {
  return readFileSync(logPath, "utf8").slice(offset).split('"msg":"ready"').length - 1;
}
