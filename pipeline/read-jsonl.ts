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

export async function* readJsonl(path: string): AsyncGenerator<unknown> {
  const file = createReadStream(path);
  const input = path.endsWith(".gz") ? file.pipe(createGunzip()) : file;
  if (input !== file) file.on("error", (error) => input.destroy(error));
  input.setEncoding("utf8");
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (line.trim() === "") continue;
    try {
      yield JSON.parse(line);
    } catch {
      throw new JsonlError(`${path}:${number}: not a JSON value`);
    }
  }
}

/** Every value of several files, in order. */
export async function* readJsonlFiles(paths: readonly string[]): AsyncGenerator<unknown> {
  for (const path of paths) yield* readJsonl(path);
}
