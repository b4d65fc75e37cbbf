/**
 * The inputs of `build --input`: JSON Lines files and export folders, checked
 * before anything is read or locked, then read as located input items.
 */
import { closeSync, openSync, statSync } from "node:fs";
import { ExportReadError, exportRecords, verifyExport } from "../export/read-export.js";
import { readJsonlLines } from "../read-jsonl.js";
import { UsageError } from "./exit-codes.js";
import type { InputItem } from "./import-records.js";

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Every export folder among the inputs checked against its manifest (each
 * file's size and SHA-256) before a row is read: a folder that fails is
 * refused whole, naming its files (ExportReadError); an input that does
 * not exist or cannot be read is a UsageError. Returns a line per export.
 */
export async function verifyExportInputs(inputs: readonly string[]): Promise<string[]> {
  const checked: string[] = [];
  for (const input of inputs) {
    try {
      // Anything but a folder is read as JSON Lines: a file, a pipe, /dev/stdin.
      if (!statSync(input).isDirectory()) closeSync(openSync(input, "r"));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === "ENOENT" ? "no such file or folder" : code === "EACCES" ? "not readable (permission denied)" : (error as Error).message;
      throw new UsageError(`build --input ${input}: ${reason}`);
    }
  }
  for (const input of inputs.filter(isDirectory)) {
    // A folder without an export manifest is refused by verifyExport, saying so.
    const { manifest, problems } = await verifyExport(input);
    if (problems.length > 0) {
      throw new ExportReadError(
        `${input} does not match its manifest, so nothing was imported:\n${problems.map((p) => `  ${p.file}: ${p.problem}`).join("\n")}`,
      );
    }
    checked.push(`${input}: an export of ${manifest.counts.videos} videos (${manifest.dataFormat}, build ${manifest.source.buildId}), every file as its manifest says`);
  }
  return checked;
}

/** The records of every input in order, each with where it is: a JSON Lines file's lines, an export folder's videos. */
export async function* inputItems(inputs: readonly string[]): AsyncGenerator<InputItem> {
  for (const input of inputs) {
    if (isDirectory(input)) {
      yield* exportRecords(input);
      continue;
    }
    for await (const line of readJsonlLines(input)) {
      const where = `${input}:${line.line}`;
      yield line.malformed ? { where, problem: { field: "", rule: "not a JSON value" } } : { where, value: line.value };
    }
  }
}

