/**
 * Where artifact sets live in DATA_DIR, and how a new one is published:
 * builds go to `builds/<id>/`, and `current` is a symlink swapped by an
 * atomic rename, so a reader resolves either the old set or the new one.
 */
import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { readdir, readlink, rename, rm, symlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { DATA_DIR_NAMES, dataDirLayout } from "../artifact/layout/index.js";
import { readManifest, verifyArtifactSet } from "../artifact/manifest/index.js";
import { processIsAlive } from "../state/acquire-lock.js";

/** A fresh, not yet existing directory for a build; names sort by time. */
export function newBuildDir(dataDir: string): string {
  // Milliseconds included: builds made within one second must still sort by time.
  const stamp = new Date().toISOString().replace(/[-:.]/g, "");
  return join(dataDirLayout(dataDir).builds, `${stamp}-${randomBytes(3).toString("hex")}`);
}

/** `.<outDir name>.partial-<pid>-<ms>`: where a build writes until it is complete and renamed to its own name. */
const PARTIAL_NAME = /^\..+\.partial-(\d+)-\d+$/;

/** The sibling folder a build of `outDir` by this process writes in; its name holds this process's pid. */
export function partialBuildDir(outDir: string): string {
  return join(dirname(outDir), `.${basename(outDir)}.partial-${process.pid}-${Date.now()}`);
}

/** The pid of the process building in the partial folder named `name`, or undefined if it is not one. */
export function partialOwner(name: string): number | undefined {
  const match = PARTIAL_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}


export class PublishError extends Error {
  override name = "PublishError";
}

/**
 * Checks the build's files against its manifest (every hash), then points
 * `current` at `buildDir` atomically and removes builds older than the newest
 * `keep` (the new one included). A build that does not match its manifest is
 * removed and never published. The check is added to DATA_DIR's record of
 * verified sets (verified-sets.ts), so the server need not hash it again.
 */
export async function publishBuild(dataDir: string, buildDir: string, keep = 2): Promise<void> {
  try {
    await verifyArtifactSet(dataDir, realpathSync(buildDir), readManifest(buildDir));
  } catch (error) {
    await rm(buildDir, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message : String(error);
    throw new PublishError(`The build in ${buildDir} does not match its manifest and was not published (it was removed): ${reason}`, { cause: error });
  }
  await pointCurrentAt(dataDir, buildDir);
  await pruneBuilds(dataDir, keep);
}

/** Points `current` at `buildDir` (in `<DATA_DIR>/builds`) by an atomic rename, checking nothing: `publishBuild` is the way to publish. */
export async function pointCurrentAt(dataDir: string, buildDir: string): Promise<void> {
  const target = join(DATA_DIR_NAMES.builds, basename(buildDir));
  const temporary = join(dataDir, `.${DATA_DIR_NAMES.current}.${process.pid}.${Date.now()}`);
  await symlink(target, temporary);
  await rename(temporary, dataDirLayout(dataDir).current);
}

/** The build `current` points at, if any. */
export async function currentBuildName(dataDir: string): Promise<string | undefined> {
  try {
    return basename(await readlink(dataDirLayout(dataDir).current));
  } catch {
    return undefined;
  }
}

async function pruneBuilds(dataDir: string, keep: number): Promise<void> {
  const current = await currentBuildName(dataDir);
  const builds = dataDirLayout(dataDir).builds;
  const names = (await readdir(builds)).filter((n) => !n.startsWith(".")).sort();
  const stale = names.slice(0, Math.max(0, names.length - keep)).filter((n) => n !== current);
  // A server still reading an old set keeps its open files: unlinking them does not pull data from under it.
  for (const name of stale) await rm(join(builds, name), { recursive: true, force: true });
  await removeAbandonedPartials(builds);
}

/**
 * Removes from `buildsDir` the partial folders (`.<id>.partial-<pid>-<ms>`) of
 * builds whose process is no longer alive, e.g. after a kill -9; a live
 * process's build is left alone. Returns the names removed.
 */
export async function removeAbandonedPartials(buildsDir: string): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(buildsDir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = partialOwner(name);
    if (pid === undefined || processIsAlive(pid)) continue;
    await rm(join(buildsDir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
