/**
 * `install-set`: publishes here an artifact set built on another machine. The
 * set's folder (one `builds/<id>` of that machine, copied by any means) is
 * copied into `builds/` under a partial name (`.<id>.partial-<pid>-<ms>`, as a
 * build writes), every file is hashed there against the manifest, and the
 * folder is renamed to `builds/<id>` and published like a build: the same
 * guard, the same atomic swap of `current`, the same pruning. The hashing is
 * added to this machine's record of verified sets, so the server switches
 * without hashing again. A stop (SIGTERM, kill -9) leaves at most a partial
 * folder, which the next build, publish or install removes.
 *
 * Nothing this machine answered as stored may be lost by the switch: see
 * `checkLiveRecords`.
 */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { basename, dirname, join, resolve } from "node:path";
import { ARTIFACT_FILES, type Manifest } from "../artifact/contract/index.js";
import { dataDirLayout } from "../artifact/layout/index.js";
import { openLiveSnapshot } from "../artifact/live-store/index.js";
import { ArtifactError, hashSetFiles, readManifest, recordVerified, verifyArtifactSet } from "../artifact/manifest/index.js";
import { BuildInterrupted, throwIfInterrupted } from "../command/interrupt.js";
import { currentBuildName, partialBuildDir, publishBuild, removeAbandonedPartials } from "./publish.js";
import { checkPublish, PublishRefused } from "./publish-guard.js";

/** The folder cannot be installed as given (not a set's folder, a name clash); nothing was changed. */
export class InstallError extends Error {
  override name = "InstallError";
}

export interface InstallSetOptions {
  dataDir: string;
  /** The copied `builds/<id>` folder; its name becomes the build id here. */
  source: string;
  /** Publish even a set that drops most of the served transcripts (never one that drops live-fetched ones: checkLiveRecords). */
  force?: boolean;
  log?: (message: string) => void;
  /** Aborting stops the copy or the hashing: the partial folder is removed, nothing is published (BuildInterrupted). */
  signal?: AbortSignal;
}

export interface InstalledSet {
  id: string;
  dir: string;
  manifest: Manifest;
  /** `copied`: copied and hashed here; `existing`: `builds/<id>` held this very set already; `served`: it is served already. */
  outcome: "copied" | "existing" | "served";
  bytes: number;
  seconds: number;
}

/** A build id as `builds/` holds it: no path separators, no leading dot (those are partial folders). */
const BUILD_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export async function installSet(options: InstallSetOptions): Promise<InstalledSet> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const { dataDir, signal } = options;
  const source = resolve(options.source);
  let isDir = false;
  try {
    isDir = statSync(source).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new InstallError(`${source} is not a folder: give the copied builds/<id> folder of a published set`);
  const id = basename(source);
  if (!BUILD_ID.test(id)) throw new InstallError(`${source}: the folder's name (${id}) is used as the build id and must be letters, digits, '.', '_' or '-', not starting with '.'`);
  // Sizes, schema version and options hash first: a set this code cannot serve is refused before anything is copied.
  const manifest = readManifest(source);
  for (const name of Object.keys(manifest.files)) {
    if (!BUILD_ID.test(name) || name === ARTIFACT_FILES.manifest) throw new ArtifactError(`${join(source, ARTIFACT_FILES.manifest)} names a file ${JSON.stringify(name)} outside the set's folder`);
  }
  const bytes = Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);
  const layout = dataDirLayout(dataDir);
  await mkdir(layout.builds, { recursive: true });
  const builds = realpathSync(layout.builds);
  if (dirname(realpathSync(source)) === builds) {
    throw new InstallError(`${source} is already in ${layout.builds}: copy the set to a folder outside it, then install from there`);
  }
  // Before anything is copied: the cheap refusal.
  checkPublish(dataDir, manifest, { force: options.force ?? false });
  const final = join(builds, id);
  const elapsed = () => (performance.now() - started) / 1000;

  if (existsSync(final)) {
    const existing = readManifest(final);
    if (!sameSet(existing, manifest)) {
      throw new InstallError(`${final} already holds a different set (built ${existing.builtAt}) under this id; nothing was installed`);
    }
    if ((await currentBuildName(dataDir)) === id) {
      log(`${id} is already the published set; nothing to do`);
      return { id, dir: final, manifest: existing, outcome: "served", bytes: 0, seconds: elapsed() };
    }
    log(`${final} holds this set already: checking it and publishing it`);
    await verifyArtifactSet(dataDir, final, existing);
    checkLiveRecords(dataDir, final, existing);
    await publishBuild(dataDir, final);
    return { id, dir: final, manifest: existing, outcome: "existing", bytes: 0, seconds: elapsed() };
  }

  await removeAbandonedPartials(builds);
  const work = partialBuildDir(final);
  try {
    await mkdir(work);
    // The manifest's bytes are read once, before the files: the copy is checked against exactly what is installed.
    const manifestBytes = readFileSync(join(source, ARTIFACT_FILES.manifest));
    for (const name of Object.keys(manifest.files)) {
      throwIfInterrupted(signal);
      log(`copying ${name} (${manifest.files[name]!.bytes} bytes)`);
      await copyDurably(join(source, name), join(work, name), signal);
    }
    await writeDurably(join(work, ARTIFACT_FILES.manifest), manifestBytes);
    await syncDir(work);
    const copied = readManifest(work);
    log(`hashing the copy (${bytes} bytes)`);
    const hashed = await hashSetFiles(work, copied, {
      describe: (name) => `${join(source, name)} (copied to ${basename(work)})`,
      hasher: async (paths) => {
        const hashes: string[] = [];
        for (const path of paths) hashes.push(await sha256Interruptible(path, signal));
        return hashes;
      },
    });
    throwIfInterrupted(signal);
    // Again with the manifest as copied, in case the source's changed after the first look.
    checkPublish(dataDir, copied, { force: options.force ?? false });
    checkLiveRecords(dataDir, work, copied);
    // A complete, checked set takes its own name in one rename: there is never a half-copied set under it.
    await rename(work, final);
    await syncDir(builds);
    recordVerified(dataDir, final, hashed);
    await publishBuild(dataDir, final);
    return { id, dir: final, manifest: copied, outcome: "copied", bytes, seconds: elapsed() };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    if (signal?.aborted && !(error instanceof BuildInterrupted)) {
      throw new BuildInterrupted(`The install was interrupted: ${String(signal.reason instanceof Error ? signal.reason.message : signal.reason)}`);
    }
    throw error;
  }
}

/** The same build: the same files with the same hashes, built at the same moment. */
function sameSet(a: Manifest, b: Manifest): boolean {
  const files = (m: Manifest) => JSON.stringify(Object.entries(m.files).sort(([x], [y]) => x.localeCompare(y)));
  return a.builtAt === b.builtAt && a.dataset === b.dataset && files(a) === files(b);
}

async function sha256Interruptible(path: string, signal: AbortSignal | undefined): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function copyDurably(from: string, to: string, signal: AbortSignal | undefined): Promise<void> {
  await pipeline(createReadStream(from, { highWaterMark: 1 << 20 }), createWriteStream(to, { flags: "wx" }), ...(signal ? [{ signal }] : []));
  const handle = await open(to, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeDurably(path: string, data: Buffer): Promise<void> {
  await writeFile(path, data, { flag: "wx" });
  const handle = await open(path, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename or a new entry in `dir` durable. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** How far (a sequence number) a set's manifest says it holds the records of the live store `storeId`. */
function watermarkOf(manifest: Pick<Manifest, "liveStoreId" | "liveSeq">, storeId: string): number {
  return manifest.liveStoreId === storeId ? manifest.liveSeq : 0;
}

/**
 * Refuses (PublishRefused, even with `--force`: the guard's override is for
 * sets that shrink, never for losing what was answered as stored) a set that
 * would stop serving a transcript this machine answered as stored. This machine's live records
 * stay in `live.db` until every set in `builds/` holds them (the server trims
 * only through the lowest watermark of this store among them, and the mirror
 * of a shared store skips what the served set holds), so:
 *
 * - The set must hold this store's records at least as far as the served set
 *   and every set in `builds/` does: what they hold may have left `live.db`
 *   already. A set from another store holds none (watermark 0), so it is
 *   refused where this machine published its own live records.
 * - The records still in `live.db` that the set says it holds (up to its
 *   watermark) must be in its database, video and track: a watermark of a
 *   store another machine copied would otherwise trim records it never saw.
 */
export function checkLiveRecords(dataDir: string, setDir: string, manifest: Manifest): void {
  const live = openLiveSnapshot(dataDir);
  if (live === undefined || live.storeId === undefined) return;
  const storeId = live.storeId;
  const problems: string[] = [];
  try {
    const holds = watermarkOf(manifest, storeId);
    const held = heldWatermarks(dataDir, storeId);
    const highest = held.reduce((max, h) => (h.seq > max.seq ? h : max), { seq: 0, name: "" });
    if (highest.seq > holds) {
      problems.push(
        `the set ${highest.name} holds this machine's live-fetched transcripts through #${highest.seq} of its live store (${storeId}), ` +
          `the new set through #${holds}: the ones between may be stored only in the served sets, and would no longer be served`,
      );
    }
    if (holds > 0) {
      const db = new Database(join(setDir, ARTIFACT_FILES.database), { readonly: true, fileMustExist: true });
      try {
        const video = db.prepare("SELECT id FROM videos WHERE video_id = ?").pluck();
        const track = db.prepare("SELECT 1 FROM transcripts WHERE video = ? AND language_code = ? AND is_generated = ?").pluck();
        const missing: string[] = [];
        for (const { record, seq } of live.records(holds)) {
          const row = video.get(record.videoId) as number | undefined;
          const complete = row !== undefined && record.transcripts.every((t) => track.get(row, t.languageCode, t.isGenerated ? 1 : 0) !== undefined);
          if (!complete) missing.push(`${record.videoId} (#${seq})`);
        }
        if (missing.length > 0) {
          problems.push(
            `its watermark says it holds this machine's live records through #${holds}, but ${missing.length} of them are not in it ` +
              `(${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}): they would leave live.db unserved`,
          );
        }
      } finally {
        db.close();
      }
    }
  } finally {
    live.close();
  }
  if (problems.length === 0) return;
  throw new PublishRefused(
    `refusing to publish: ${problems.join("; ")}. Nothing was published, and --force does not change this. ` +
      "Publish a set that holds them (built where they were folded in: with DATABASE_URL, or from an export of this machine).",
  );
}

/** This store's watermark in the served set and in each set of `builds/` (an unreadable manifest counts as 0). */
function heldWatermarks(dataDir: string, storeId: string): { name: string; seq: number }[] {
  const layout = dataDirLayout(dataDir);
  const marks: { name: string; seq: number }[] = [];
  const read = (dir: string, name: string) => {
    try {
      marks.push({ name, seq: watermarkOf(JSON.parse(readFileSync(join(dir, ARTIFACT_FILES.manifest), "utf8")) as Manifest, storeId) });
    } catch {
      // No readable manifest: it holds nothing that could be lost.
    }
  };
  try {
    read(layout.current, basename(realpathSync(layout.current)));
  } catch {
    // nothing served yet
  }
  let names: string[] = [];
  try {
    names = readdirSync(layout.builds).filter((name) => !name.startsWith("."));
  } catch {
    // no builds yet
  }
  for (const name of names) read(join(layout.builds, name), name);
  return marks;
}
