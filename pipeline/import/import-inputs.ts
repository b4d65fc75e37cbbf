/**
 * The inputs of `build --input`: every path checked before the run lock is
 * taken or the pipeline state opened, so a mistyped path changes nothing;
 * export folders checked against their manifests before a row is read; then
 * every input read as located input items.
 */
import type { ExportManifest } from "../export/dataset-schema.js";
import { ExportReadError, exportRecords, readExportManifest, verifyExport } from "../export/read-export.js";
import { inspectInputPath } from "../input/inspect-input-path.js";
import { readJsonlLines } from "../input/read-jsonl.js";
import { UsageError } from "../command/exit-codes.js";
import type { InputItem } from "../input/input-item.js";

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

/**
 * Every export folder among the inputs checked against its manifest (each
 * file's size and SHA-256) before a row is read: a folder that fails is
 * refused whole, naming its files (ExportReadError). Paths were checked
 * before (checkBuildInputs). Returns a line per export.
 */
export async function verifyExportInputs(inputs: readonly BuildInput[]): Promise<string[]> {
  const checked: string[] = [];
  for (const { path, manifest } of inputs) {
    if (manifest === undefined) continue;
    const { problems } = await verifyExport(path);
    if (problems.length > 0) {
      throw new ExportReadError(`${path} does not match its manifest, so nothing was imported:\n${problems.map((p) => `  ${p.file}: ${p.problem}`).join("\n")}`);
    }
    checked.push(`${path}: an export of ${manifest.counts.videos} videos (${manifest.dataFormat}, build ${manifest.source.buildId}), every file as its manifest says`);
  }
  return checked;
}

/** The records of every input in order, each with where it is: a JSON Lines file's lines, an export folder's videos. */
export async function* inputItems(inputs: readonly BuildInput[]): AsyncGenerator<InputItem> {
  for (const { path, manifest } of inputs) {
    if (manifest !== undefined) {
      yield* exportRecords(path);
      continue;
    }
    for await (const line of readJsonlLines(path)) {
      const where = `${path}:${line.line}`;
      yield line.malformed ? { where, problem: { field: "", rule: "not a JSON value" } } : { where, value: line.value };
    }
  }
}
