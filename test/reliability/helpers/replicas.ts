/**
 * What the replica tests share: a DATA_DIR per replica holding the live
 * tests' small set, API keys made with `npm run keys` against DATABASE_URL,
 * and Redis keys under a prefix of the test file's own, removed afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { startStandin, type Standin } from "../../../scripts/youtube-standin/server.js";
import { artifactRecords, upstreamCorpus } from "../../live/helpers/live-corpus.js";
import { publishRecords } from "../../live/helpers/live-server.js";
import { freshDatabase, REDIS_URL } from "../../helpers/services.js";
import { startChild } from "./child.js";
import type { ServerProcess } from "./server-process.js";

export interface ReplicaTestBed {
  /** The file's YouTube stand-in. */
  readonly standin: Standin;
  /** A PostgreSQL database of the file's own. */
  readonly database: { url: string; drop(): Promise<void> };
  /** Servers to stop after the file's tests. */
  readonly servers: ServerProcess[];
  /** Folders to remove after the file's tests. */
  readonly dirs: string[];
  /** Runs after the servers stopped, before the stand-in and database go (proxies, Redis keys). */
  atEnd(step: () => Promise<void> | void): void;
}

/** The hooks a file of replica tests shares when `available` (its services are up): started before its tests, gone after. */
export function replicaTestBed(available: boolean): ReplicaTestBed {
  let standin: Standin | undefined;
  let database: { url: string; drop(): Promise<void> } | undefined;
  const servers: ServerProcess[] = [];
  const dirs: string[] = [];
  const steps: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    if (!available) return;
    standin = await startStandin({ corpus: upstreamCorpus() });
    database = await freshDatabase();
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const step of steps) await step();
    await standin?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("started in beforeAll, when the services are available");
    return value;
  };
  return {
    get standin() {
      return started(standin);
    },
    get database() {
      return started(database);
    },
    servers,
    dirs,
    atEnd: (step) => steps.push(step),
  };
}

/** A new DATA_DIR with the live tests' set published (each replica has its own copy); added to `dirs` for removal. */
export async function replicaDataDir(dirs: string[], name = "replica"): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), `${name}-`));
  dirs.push(dir);
  await publishRecords(dir, artifactRecords());
  return dir;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run keys -- <args>` with DATABASE_URL, as an operator runs it. */
export async function keysCli(databaseUrl: string, args: string[]): Promise<CliResult> {
  const child = startChild("cli/keys.ts", args, { DATABASE_URL: databaseUrl });
  const { code } = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** A `pro` key made with the CLI: the key (the last line printed) and its id. */
export async function createKey(databaseUrl: string, name: string): Promise<{ key: string; keyId: string; made: CliResult }> {
  const made = await keysCli(databaseUrl, ["create", "--plan", "pro", "--name", name]);
  if (made.code !== 0) throw new Error(`keys create exited ${made.code}: ${made.stderr}`);
  const key = made.stdout.trim().split("\n").at(-1) as string;
  const keyId = /Created key ([0-9a-f]{8})/.exec(made.stdout)?.[1] as string;
  return { key, keyId, made };
}

/** A REDIS_KEY_PREFIX no other test file uses. */
export function redisPrefix(): string {
  return `t_${randomBytes(6).toString("hex")}:`;
}

/** Removes every Redis key under `prefix`. */
export async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
