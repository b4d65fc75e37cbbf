/**
 * The inputs of `build --input` (read-build-inputs.ts): export folders checked
 * against their manifests before a row is read, then every input read as
 * located input items.
 */
import { ExportReadError, exportRecords, verifyExport } from "../export/read-export.js";
import type { BuildInput } from "../read-build-inputs.js";
import { readJsonlLines } from "../read-jsonl.js";
import type { InputItem } from "./import-records.js";

/**
 * Every export folder among the inputs checked against its manifest (each
 * file's size and SHA-256) before a row is read: a folder that fails is
 * refused whole, naming its files (ExportReadError). Paths were checked
 * before (read-build-inputs.ts). Returns a line per export.
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
