/**
 * DATABASE_URL: pipeline runs on different machines (here, different
 * DATA_DIRs) exclude each other through a PostgreSQL advisory lock. A run
 * or `build --input` while another holds it exits 3 naming the holder; a
 * holder killed with -9 releases it. Real PostgreSQL, a database of this
 * file's own; skipped with one line without it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { acquireSharedLock, PIPELINE_LOCK_KEY } from "../../pipeline/state/shared-lock.js";
import { freshDatabase, postgresAvailable } from "../helpers/services.js";
import { startChild, until } from "../reliability/helpers/child.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "./helpers/synthetic-standin.js";

const available = await postgresAvailable("pipeline runs sharing PostgreSQL");
let database: { url: string; drop(): Promise<void> } | undefined;
let world: SyntheticStandin | undefined;
const dirs: string[] = [];

beforeAll(async () => {
  if (!available) return;
  database = await freshDatabase();
  world = await startSyntheticStandin({ videos: 40, channels: 1, seed: 11 });
});
afterAll(async () => {
  await world?.close();
  await database?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "shared-lock-"));
  dirs.push(dir);
  return dir;
}

function pipeline(dir: string, args: string[]) {
  return startChild("pipeline/cli.ts", args, { DATA_DIR: dir, DATABASE_URL: database!.url });
}

async function lockHeld(): Promise<boolean> {
  const client = new pg.Client({ connectionString: database!.url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())", [PIPELINE_LOCK_KEY]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

describe.skipIf(!available)("DATABASE_URL: one pipeline run at a time across machines", () => {
  test("while another machine's run holds the lock, run and build --input exit 3 naming it; released, a run goes ahead", async () => {
    const held = await acquireSharedLock(database!.url);
    const dir = dataDir();
    const list = writeChannelList(path.join(dir, "channels.txt"), world!.corpus, 1);
    const input = path.join(dir, "records.jsonl");
    writeFileSync(input, "");
    try {
      const run = pipeline(dir, ["run", "--channels", list, "--origin", world!.standin.origin]);
      const refused = await run.exited;
      expect(refused.code).toBe(EXIT.locked);
      expect(run.stderr()).toMatch(/Another pipeline run holds the PostgreSQL advisory lock \(transcript-pipeline \S+ pid \d+, since \d{4}-/);
      const build = pipeline(dir, ["build", "--input", input]);
      expect((await build.exited).code).toBe(EXIT.locked);
      expect(build.stderr()).toMatch(/PostgreSQL advisory lock/);
      expect(world!.standin.stats.total).toBe(0); // refused before anything was fetched
    } finally {
      await held.release();
    }
    const run = pipeline(dir, ["run", "--channels", list, "--origin", world!.standin.origin]);
    expect((await run.exited).code).toBe(EXIT.ok);
    expect(await lockHeld()).toBe(false);
  }, 180_000);

  test("two runs at once on two DATA_DIRs: the second exits 3; the first killed with -9 frees the lock", async () => {
    const [a, b] = [dataDir(), dataDir()];
    const list = writeChannelList(path.join(a, "channels.txt"), world!.corpus, 1);
    world!.standin.setFault({ kind: "slow", delayMs: 30_000 });
    try {
      const first = pipeline(a, ["run", "--channels", list, "--origin", world!.standin.origin]);
      await until(lockHeld, 60_000, "the first run to take the lock");
      const second = pipeline(b, ["run", "--channels", list, "--origin", world!.standin.origin]);
      expect((await second.exited).code).toBe(EXIT.locked);
      first.process.kill("SIGKILL");
      await first.exited;
      await until(async () => !(await lockHeld()), 10_000, "PostgreSQL to release the killed run's lock");
    } finally {
      world!.standin.setFault(null);
    }
    const again = await acquireSharedLock(database!.url);
    await again.release();
  }, 180_000);
});
