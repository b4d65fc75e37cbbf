/** Streams JSON Lines files as parsed values; a line that is not JSON is reported with its file and line number. */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

export class JsonlError extends Error {
  override name = "JsonlError";
}

export async function* readJsonl(path: string): AsyncGenerator<unknown> {
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
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
