/**
 * What the replica tests share: a DATA_DIR per replica holding the live
 * tests' small set, API keys made with `npm run keys` against DATABASE_URL,
 * and Redis keys under a prefix of the test file's own, removed afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { artifactRecords } from "../../live/helpers/live-corpus.js";
import { publishRecords } from "../../live/helpers/live-server.js";
import { REDIS_URL } from "../../helpers/services.js";
import { startChild } from "./child.js";

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
  const child = startChild("scripts/keys.ts", args, { DATABASE_URL: databaseUrl });
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
