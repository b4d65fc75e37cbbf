/**
 * Opening the live store while another process holds a lock on it: several
 * workers open a new store at once (WORKERS > 1), and switching the file to
 * WAL can be refused at once, without the busy timeout's wait (seen as a
 * worker failing to start with "database is locked"). `whileBusy` tries again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { whileBusy } from "../../server/data/while-busy.js";

const REPO = resolve(import.meta.dirname, "../..");
const dirs: string[] = [];
const holders: ChildProcess[] = [];

afterEach(() => {
  for (const child of holders.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Another process holding an exclusive lock on a new database at `path` for `ms`; resolves once it holds it. */
async function lockFor(path: string, ms: number): Promise<ChildProcess> {
  const code = `
    const db = new (require("better-sqlite3"))(process.argv[1]);
    db.exec("CREATE TABLE IF NOT EXISTS t (x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1);");
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ["-e", code, path, String(ms)], { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
  holders.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (data: Buffer) => data.toString().includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
  return child;
}

function newPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "live-open-"));
  dirs.push(dir);
  return join(dir, "live.db");
}

describe("opening the live store beside another process", () => {
  it("a switch to WAL refused by another process's lock is tried again until the lock goes", async () => {
    const path = newPath();
    await lockFor(path, 300);
    const db = new Database(path);
    try {
      db.pragma("busy_timeout = 0");
      // Refused at once while the other process holds the lock.
      expect(() => db.pragma("journal_mode = WAL")).toThrow(expect.objectContaining({ code: expect.stringMatching(/^SQLITE_BUSY/) }));
      const started = performance.now();
      expect(whileBusy(() => db.pragma("journal_mode = WAL", { simple: true }))).toBe("wal");
      expect(performance.now() - started).toBeGreaterThan(50);
    } finally {
      db.close();
    }
  });

  it("a lock held past the deadline is thrown as the busy error, and any other error at once", async () => {
    const path = newPath();
    await lockFor(path, 5_000);
    const db = new Database(path);
    try {
      db.pragma("busy_timeout = 0");
      const started = performance.now();
      expect(() => whileBusy(() => db.pragma("journal_mode = WAL"), 150)).toThrow(expect.objectContaining({ code: expect.stringMatching(/^SQLITE_BUSY/) }));
      expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    } finally {
      db.close();
    }
    let tries = 0;
    expect(() =>
      whileBusy(() => {
        tries++;
        throw new Error("not a lock");
      }),
    ).toThrow("not a lock");
    expect(tries).toBe(1);
  });
});
