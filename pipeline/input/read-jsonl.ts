/**
 * Streams JSON Lines files (gzip-compressed when the name ends in `.gz`) as
 * parsed values; a line that is not JSON is reported with its file and line number.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";

export class JsonlError extends Error {
  override name = "JsonlError";
}

/** A line of a JSON Lines file: its value, or `malformed` when it is not JSON; `line` counts from 1. */
export type JsonlLine = { line: number; value: unknown; malformed?: undefined } | { line: number; malformed: true };

/** Every non-blank line of the file, parsed, a line that is not JSON marked rather than thrown. */
export async function* readJsonlLines(path: string): AsyncGenerator<JsonlLine> {
  const file = createReadStream(path);
  const input = path.endsWith(".gz") ? file.pipe(createGunzip()) : file;
  if (input !== file) file.on("error", (error) => input.destroy(error));
  input.setEncoding("utf8");
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const line of lines) {
      number++;
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        yield { line: number, malformed: true };
        continue;
      }
      yield { line: number, value };
    }
  } catch (error) {
    // A read or gunzip error (a truncated .gz, say), named with the file and how far it got.
    throw new JsonlError(`${path}: cannot be read past line ${number}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Every value of the file; a line that is not JSON throws JsonlError naming the file and line. */
export async function* readJsonl(path: string): AsyncGenerator<unknown> {
  for await (const item of readJsonlLines(path)) {
    if (item.malformed) throw new JsonlError(`${path}:${item.line}: not a JSON value`);
    yield item.value;
  }
}

/** Every value of several files, in order. */
export async function* readJsonlFiles(paths: readonly string[]): AsyncGenerator<unknown> {
  for (const path of paths) yield* readJsonl(path);
}
