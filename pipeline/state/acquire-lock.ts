/**
 * One run at a time per DATA_DIR: `<DATA_DIR>/pipeline/run.lock`, created
 * with O_EXCL and holding the owner's pid. A second run refuses; a lock whose
 * pid is no longer alive (the run was killed with -9, or the machine
 * rebooted) is taken over. SQLite's own locking already keeps the state
 * database consistent under any overlap; this lock keeps two runs from
 * fetching the same videos twice.
 */
import { hostname } from "node:os";
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
}

export class LockHeldError extends Error {
  override name = "LockHeldError";
  constructor(
    readonly path: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(
      owner
        ? `Another pipeline run holds ${path} (pid ${owner.pid} on ${owner.hostname}, since ${owner.startedAt}); not starting`
        : `Another pipeline run holds ${path}; not starting`,
    );
  }
}

export interface RunLock {
  readonly path: string;
  /** Whether a dead run's lock was taken over. */
  readonly tookOver: LockOwner | undefined;
  release(): void;
}

export interface AcquireLockOptions {
  /** Whether a process is alive; injectable for tests. Default: `process.kill(pid, 0)`. */
  isAlive?: (pid: number) => boolean;
}

export function acquireLock(path: string, options: AcquireLockOptions = {}): RunLock {
  const isAlive = options.isAlive ?? processIsAlive;
  mkdirSync(dirname(path), { recursive: true });
  const me: LockOwner = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() };
  let tookOver: LockOwner | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path, me)) return handle(path, tookOver);
    const owner = readOwner(path);
    if (owner === "missing") continue; // released between our create and read: try again
    // A garbled lock (its owner died between create and write) counts as stale once it is a minute old.
    const stale =
      owner === undefined ? ageMs(path) > 60_000 : owner.hostname === me.hostname && !isAlive(owner.pid);
    if (!stale) throw new LockHeldError(path, owner);
    // Move the stale lock aside under a name of our own, then check that what we moved is
    // still the dead run's lock: if another run took it over in between, put theirs back.
    const aside = `${path}.stale-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch {
      continue;
    }
    const moved = readOwner(aside);
    if (moved !== "missing" && moved !== undefined && moved.pid !== owner?.pid) {
      try {
        linkSync(aside, path);
      } catch {
        // someone holds a new lock already; theirs stands
      }
      unlinkSafe(aside);
      throw new LockHeldError(path, moved);
    }
    unlinkSafe(aside);
    tookOver = owner ?? { pid: 0, hostname: me.hostname, startedAt: "" };
  }
  throw new LockHeldError(path, undefined);
}

function handle(path: string, tookOver: LockOwner | undefined): RunLock {
  let released = false;
  return {
    path,
    tookOver,
    release() {
      if (released) return;
      released = true;
      const owner = readOwner(path);
      if (owner !== "missing" && owner?.pid === process.pid) unlinkSafe(path);
    },
  };
}

function tryCreate(path: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The owner, `undefined` when the file is unreadable or garbled (then it is not ours to break), "missing" when gone. */
function readOwner(path: string): LockOwner | undefined | "missing" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (typeof parsed.pid === "number" && typeof parsed.hostname === "string") {
      return { pid: parsed.pid, hostname: parsed.hostname, startedAt: String(parsed.startedAt ?? "") };
    }
  } catch {
    // An empty file: the owner died between create and write. Treated like a garbled one.
  }
  return undefined;
}

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function unlinkSafe(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
