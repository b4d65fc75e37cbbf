/**
 * The server's side of verified sets (pipeline/artifact/manifest/verified-sets.ts): a set is
 * hashed on a worker thread unless this machine's record vouches for it, and
 * each hashing is logged with its duration. Also finds the newest earlier
 * build that verifies, for a server whose published set is damaged.
 */
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { hashFilesInWorker, readManifest, verifyArtifactSet, type VerifyOutcome } from "../../pipeline/artifact/manifest/index.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/index.js";
import type { Logger } from "../log.js";

/** Checks the set in the resolved directory `dir` against its manifest; throws ArtifactError when it does not match. */
export async function verifySet(dataDir: string, dir: string, log: Logger): Promise<VerifyOutcome> {
  const manifest = readManifest(dir);
  const started = performance.now();
  const outcome = await verifyArtifactSet(dataDir, dir, manifest, {
    hasher: hashFilesInWorker,
    onHash: () => log.info("hashing artifact set", { dir, bytes: Object.values(manifest.files).reduce((sum, f) => sum + f.bytes, 0) }),
  });
  if (outcome === "hashed") log.info("artifact set verified", { dir, ms: Math.round(performance.now() - started) });
  else log.debug("artifact set verified earlier on this machine and unchanged", { dir });
  return outcome;
}

/**
 * The newest build in `<DATA_DIR>/builds` older than `bad` (all of them when
 * `bad` is not there) that verifies, other than those in `exclude`; each
 * refusal is logged. Undefined when none does.
 */
export async function previousVerifiedSet(dataDir: string, bad: string, exclude: ReadonlySet<string>, log: Logger): Promise<string | undefined> {
  const buildsDir = dataDirLayout(dataDir).builds;
  if (!existsSync(buildsDir)) return undefined;
  const root = realpathSync(buildsDir);
  const limit = dirname(bad) === root ? basename(bad) : undefined;
  const names = readdirSync(root)
    .filter((name) => !name.startsWith(".") && (limit === undefined || name < limit))
    .sort()
    .reverse();
  for (const name of names) {
    const dir = join(root, name);
    if (exclude.has(dir) || dir === bad) continue;
    try {
      await verifySet(dataDir, dir, log);
      return dir;
    } catch (error) {
      log.warn("earlier artifact set does not verify either", { dir, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return undefined;
}
