/**
 * The inputs of `build --input`: every one checked before the run lock is
 * taken or the pipeline state opened, so a mistyped path changes nothing
 * (run/import-inputs.ts then checks and reads them).
 */
import type { ExportManifest } from "./export/dataset-schema.js";
import { ExportReadError, exportRecords, readExportManifest } from "./export/read-export.js";
import { inspectInputPath } from "./inspect-input-path.js";
import { UsageError } from "./run/exit-codes.js";

export interface BuildInput {
  path: string;
  /** Set for an export folder. */
  manifest?: ExportManifest;
}

/**
 * Throws a UsageError (exit 2) for a path that is missing or unreadable, as
 * `run` does for its channel list, and an ExportReadError (exit 1) for a
 * folder that is not a whole export, as for any input whose content is wrong.
 */
export function checkBuildInputs(paths: readonly string[]): BuildInput[] {
  return paths.map((path) => {
    const found = inspectInputPath(path);
    if (found.kind === "missing") throw new UsageError(`build: --input ${path}: no such file or folder`);
    if (found.kind === "unreadable") throw new UsageError(`build: --input ${path}: ${found.reason}`);
    if (found.kind === "file") return { path };
    try {
      return { path, manifest: readExportManifest(path) };
    } catch (error) {
      if (error instanceof ExportReadError) throw new ExportReadError(`build: --input ${error.message}`);
      throw error;
    }
  });
}
