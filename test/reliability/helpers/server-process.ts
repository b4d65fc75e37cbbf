/**
 * The real server as a child process (`server/main.ts`), over a DATA_DIR in a
 * temp dir holding the fixture artifact set and a key made beforehand, so
 * tests can kill it, restart it on the same files and read its RSS.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildArtifacts } from "../../../pipeline/build/build-artifacts.js";
import { newBuildDir, publishBuild } from "../../../pipeline/publish/publish.js";
import { openKeyStore } from "../../../server/auth/key-store.js";
import { fixtureRecords } from "../../server/helpers/fixture-records.js";
import { startChild, TEST_SERVER_ENV, until, type Child } from "./child.js";

export interface DataDir {
  dir: string;
  key: string;
  cleanup(): void;
}

export async function prepareDataDir(): Promise<DataDir> {
  const dir = mkdtempSync(path.join(tmpdir(), "reliability-data-"));
  const build = newBuildDir(dir);
  await buildArtifacts({ records: fixtureRecords(), outDir: build, dataset: "test" });
  await publishBuild(dir, build);
  const keys = openKeyStore({ dataDir: dir });
  const { key } = keys.create({ plan: "pro", name: "reliability" });
  keys.close();
  return { dir, key, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ServerProcess {
  child: Child;
  baseUrl: string;
  pid: number;
  /** Resident set size now, in bytes (Linux /proc). */
  rss(): number;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return serverListening(spawnServer(dataDir, env));
}

/** The server started, not yet listening (see `serverListening`). */
export function spawnServer(dataDir: string, env: Record<string, string> = {}): Child {
  return startChild("server/main.ts", [], {
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    ACCESS_LOG: "off",
    RATE_LIMIT_PER_MINUTE: "1000000",
    ...TEST_SERVER_ENV,
    ...env,
  });
}

/** Resolves once `child` logs that it listens and, at LOG_LEVEL info or below, that it (each of its workers) is ready. */
export async function serverListening(child: Child): Promise<ServerProcess> {
  let baseUrl = "";
  await until(
    () => {
      if (child.process.exitCode !== null) throw new Error(`server exited: ${child.stderr()}${child.stdout()}`);
      const match = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(child.stdout());
      if (match?.[1]) baseUrl = match[1];
      return baseUrl !== "";
    },
    60_000,
    "the server to listen",
  );
  // It answers from the start; ready (/readyz) once the search memory is filled, each worker for itself.
  const workers = Number(/"msg":"listening".*?"workers":(\d+)/.exec(child.stdout())?.[1] ?? 1);
  const readyLines = () => child.stdout().split('"msg":"ready"').length - 1;
  if (/"level":"info"/.test(child.stdout())) {
    await until(
      () => {
        if (child.process.exitCode !== null) throw new Error(`server exited: ${child.stderr()}${child.stdout()}`);
        return readyLines() >= workers;
      },
      60_000,
      "the server to be ready",
    );
  }
  const pid = child.process.pid as number;
  return {
    child,
    baseUrl,
    pid,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024,
    async stop() {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGTERM");
      return child.exited;
    },
  };
}
