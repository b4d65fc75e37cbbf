/** Builds real artifact sets in temp directories for tests. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildArtifacts } from "../../pipeline/build.js";
import type { VideoRecord } from "../../pipeline/contract.js";

export interface TempArtifacts {
  root: string;
  dir: string;
  cleanup: () => void;
}

export async function buildTempArtifacts(records: VideoRecord[], dataset = "test"): Promise<TempArtifacts> {
  const root = mkdtempSync(join(tmpdir(), "ts-artifacts-"));
  const dir = join(root, "set");
  await buildArtifacts({ records, outDir: dir, dataset });
  return { root, dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
