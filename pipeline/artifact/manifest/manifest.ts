/** Writing and checking `manifest.json`: schema version, options hash, counts and a checksum of every file. */
import { createHash } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { ARTIFACT_FILES, Manifest, OPTIONS_HASH, SCHEMA_VERSION } from "../contract/index.js";
import { VECTORS_FILE } from "../vectors/index.js";

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export async function writeManifest(
  dir: string,
  fields: { dataset: string; builtAt: string; counts: Manifest["counts"]; liveSeq?: number; liveStoreId?: string | undefined; vectors?: Manifest["vectors"] },
): Promise<Manifest> {
  const files: Manifest["files"] = {};
  // The vectors of search by meaning, when the build embedded (hashed like the rest).
  const vectors = existsSync(join(dir, VECTORS_FILE)) ? [VECTORS_FILE] : [];
  for (const name of [ARTIFACT_FILES.database, ARTIFACT_FILES.titleIndex, ...vectors]) {
    const path = join(dir, name);
    files[name] = { bytes: (await stat(path)).size, sha256: await sha256File(path) };
  }
  const manifest: Manifest = {
    schemaVersion: SCHEMA_VERSION,
    dataset: fields.dataset,
    optionsHash: OPTIONS_HASH,
    builtAt: fields.builtAt,
    counts: fields.counts,
    files,
    liveSeq: fields.liveSeq ?? 0,
    ...(fields.liveStoreId ? { liveStoreId: fields.liveStoreId } : {}),
    ...(fields.vectors ? { vectors: fields.vectors } : {}),
  };
  await writeFile(join(dir, ARTIFACT_FILES.manifest), JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}

export class ArtifactError extends Error {
  override name = "ArtifactError";
}

/**
 * Reads and checks the manifest of an artifact set: a version or options hash
 * this code does not know means the files were built by other code, and
 * serving them would give wrong answers, so it is refused. Sizes are checked
 * here; full checksums (slow on a large set) by `verifyChecksums`.
 */
export function readManifest(dir: string): Manifest {
  const path = join(dir, ARTIFACT_FILES.manifest);
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch {
    throw new ArtifactError(`No artifact set at ${dir}: ${ARTIFACT_FILES.manifest} is missing`);
  }
  let parsed: Manifest;
  try {
    parsed = Manifest.parse(JSON.parse(raw));
  } catch {
    throw new ArtifactError(`${path} is not a valid manifest`);
  }
  if (parsed.schemaVersion !== SCHEMA_VERSION) {
    throw new ArtifactError(
      `${path} has schema version ${parsed.schemaVersion}, but this code reads version ${SCHEMA_VERSION}: rebuild the artifacts with this version's pipeline`,
    );
  }
  if (parsed.optionsHash !== OPTIONS_HASH) {
    throw new ArtifactError(
      `${path} was built with index options ${parsed.optionsHash}, but this code uses ${OPTIONS_HASH}: rebuild the artifacts with this version's pipeline`,
    );
  }
  for (const name of Object.values(ARTIFACT_FILES)) {
    if (name !== ARTIFACT_FILES.manifest && !parsed.files[name]) throw new ArtifactError(`${path} does not list ${name}`);
  }
  for (const [name, expected] of Object.entries(parsed.files)) {
    const file = join(dir, name);
    let bytes: number;
    try {
      bytes = statSync(file).size;
    } catch {
      throw new ArtifactError(`${file} named in the manifest is missing`);
    }
    if (bytes !== expected.bytes) throw new ArtifactError(`${file} has ${bytes} bytes, the manifest says ${expected.bytes}`);
  }
  return parsed;
}

/** Recomputes every file's sha256 and throws on the first mismatch. */
export async function verifyChecksums(dir: string, manifest: Manifest): Promise<void> {
  for (const [name, expected] of Object.entries(manifest.files)) {
    if ((await sha256File(join(dir, name))) !== expected.sha256) {
      throw new ArtifactError(`${join(dir, name)} does not match its checksum in the manifest`);
    }
  }
}
