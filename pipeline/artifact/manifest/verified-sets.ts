/**
 * Checking an artifact set's files against its manifest's SHA-256 hashes, and
 * this machine's record of the sets that passed (`<DATA_DIR>/verified.json`),
 * so an unchanged set is not hashed again at every start or switch. A set is
 * unchanged while each file keeps its size, mtime (ns), inode and device and
 * the manifest still names the hashes that were checked. The pipeline (after
 * a build, before it publishes; `install-set`, after it hashed a copied set)
 * and the server (before it serves a set) both read and write the record
 * through this module.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Manifest } from "../contract/index.js";
import { dataDirLayout } from "../layout/index.js";
import { ArtifactError, sha256File } from "./manifest.js";

/** What identifies one version of a file on this machine (bigints as strings: JSON has no 64-bit integers). */
export interface FileIdentity {
  bytes: number;
  mtimeNs: string;
  ino: string;
  dev: string;
}

interface RecordedFile extends FileIdentity {
  sha256: string;
}

interface RecordedSet {
  verifiedAt: string;
  files: Record<string, RecordedFile>;
}

interface VerifiedRecord {
  version: 1;
  /** Keyed by the set's resolved directory. */
  sets: Record<string, RecordedSet>;
}

export function fileIdentity(path: string): FileIdentity {
  const stat = statSync(path, { bigint: true });
  return { bytes: Number(stat.size), mtimeNs: String(stat.mtimeNs), ino: String(stat.ino), dev: String(stat.dev) };
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.bytes === b.bytes && a.mtimeNs === b.mtimeNs && a.ino === b.ino && a.dev === b.dev;
}

function recordPath(dataDir: string): string {
  return dataDirLayout(dataDir).verified;
}

/** The record; missing or unreadable means nothing is known to be verified (every set is hashed). */
function readRecord(dataDir: string): VerifiedRecord {
  try {
    const parsed = JSON.parse(readFileSync(recordPath(dataDir), "utf8")) as Partial<VerifiedRecord>;
    if (parsed.version === 1 && parsed.sets !== null && typeof parsed.sets === "object") return { version: 1, sets: parsed.sets };
  } catch {
    // fall through
  }
  return { version: 1, sets: {} };
}

/**
 * Replaces the record atomically (temp file, fsync, rename), dropping sets
 * whose directory is gone. Two processes writing at once can lose one entry;
 * that set is then hashed once more, nothing worse.
 */
function writeRecord(dataDir: string, record: VerifiedRecord): void {
  for (const dir of Object.keys(record.sets)) {
    try {
      statSync(dir);
    } catch {
      delete record.sets[dir];
    }
  }
  const path = recordPath(dataDir);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(temporary, "w");
  try {
    writeSync(fd, JSON.stringify(record, null, 2) + "\n");
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}

/** True when this machine verified the set in `dir` against this manifest and none of its files changed since. */
export function isRecordedVerified(dataDir: string, dir: string, manifest: Manifest): boolean {
  const recorded = readRecord(dataDir).sets[dir];
  if (recorded === undefined) return false;
  const names = Object.keys(manifest.files);
  if (names.length !== Object.keys(recorded.files).length) return false;
  for (const name of names) {
    const file = recorded.files[name];
    if (file === undefined || file.sha256 !== manifest.files[name]!.sha256) return false;
    try {
      if (!sameIdentity(file, fileIdentity(join(dir, name)))) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Drops a set from the record (it failed at run time), so it is hashed before it is served again. */
export function forgetVerified(dataDir: string, dir: string): void {
  const record = readRecord(dataDir);
  if (record.sets[dir] === undefined) return;
  delete record.sets[dir];
  writeRecord(dataDir, record);
}

/** Computes the sha256 of each path; main-thread streaming by default, `hashFilesInWorker` on a server. */
export type Hasher = (paths: readonly string[]) => Promise<string[]>;

export const hashOnThisThread: Hasher = async (paths) => {
  const hashes: string[] = [];
  for (const path of paths) hashes.push(await sha256File(path));
  return hashes;
};

export interface VerifyOptions {
  hasher?: Hasher;
  /** Called when the files are actually hashed (not when the record vouches for them). */
  onHash?: (dir: string) => void;
}

export type VerifyOutcome = "recorded" | "hashed";

/** One hashing of a set's files: each file's identity before it was hashed, and its hash. */
export interface HashedFiles {
  names: string[];
  identities: FileIdentity[];
  hashes: string[];
  /** No file changed while it was hashed (only then may the hashing be recorded). */
  unchanged: boolean;
}

/**
 * Hashes every file `manifest` names in `dir` and throws ArtifactError naming
 * the first that is missing or does not match (as `describe` calls it: by
 * default its path).
 */
export async function hashSetFiles(
  dir: string,
  manifest: Manifest,
  options: VerifyOptions & { describe?: (name: string) => string } = {},
): Promise<HashedFiles> {
  const names = Object.keys(manifest.files);
  const paths = names.map((name) => join(dir, name));
  const describe = options.describe ?? ((name: string) => join(dir, name));
  const identities = names.map((name, i) => {
    try {
      return fileIdentity(paths[i]!);
    } catch {
      throw new ArtifactError(`${describe(name)} named in the manifest is missing`);
    }
  });
  options.onHash?.(dir);
  const hashes = await (options.hasher ?? hashOnThisThread)(paths);
  names.forEach((name, i) => {
    if (hashes[i] !== manifest.files[name]!.sha256) {
      throw new ArtifactError(`${describe(name)} does not match its checksum in the manifest (sha256 ${hashes[i]}, the manifest says ${manifest.files[name]!.sha256})`);
    }
  });
  let unchanged = true;
  try {
    unchanged = paths.every((path, i) => sameIdentity(identities[i]!, fileIdentity(path)));
  } catch {
    unchanged = false;
  }
  return { names, identities, hashes, unchanged };
}

/**
 * Adds the set in `dir` (its resolved path) to the record as `hashed` found
 * it, if every file still has the identity it had when hashed: a rename within
 * the file system keeps it, so a set hashed under a temporary name and then
 * renamed into place is recorded under its final name. Returns whether it was
 * recorded (not when a file changed, or the DATA_DIR is read-only).
 */
export function recordVerified(dataDir: string, dir: string, hashed: HashedFiles): boolean {
  if (!hashed.unchanged) return false;
  try {
    if (!hashed.names.every((name, i) => sameIdentity(hashed.identities[i]!, fileIdentity(join(dir, name))))) return false;
  } catch {
    return false;
  }
  const record = readRecord(dataDir);
  record.sets[dir] = {
    verifiedAt: new Date().toISOString(),
    files: Object.fromEntries(hashed.names.map((name, i) => [name, { ...hashed.identities[i]!, sha256: hashed.hashes[i]! }])),
  };
  try {
    writeRecord(dataDir, record);
    return true;
  } catch {
    // A read-only DATA_DIR: the set passed, and is hashed again next time.
    return false;
  }
}

/**
 * Checks the set in `dir` (its resolved path) against `manifest`: skipped when
 * the record vouches for it, otherwise every file is hashed and the set is
 * added to the record. Throws ArtifactError naming the first file that does
 * not match. A file that changes while it is hashed is checked, not recorded.
 */
export async function verifyArtifactSet(dataDir: string, dir: string, manifest: Manifest, options: VerifyOptions = {}): Promise<VerifyOutcome> {
  if (isRecordedVerified(dataDir, dir, manifest)) return "recorded";
  recordVerified(dataDir, dir, await hashSetFiles(dir, manifest, options));
  return "hashed";
}
