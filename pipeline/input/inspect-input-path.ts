/**
 * A path named on the command line (`build --input`, `export --verify`,
 * `export --out`), looked at before any lock is taken or state opened, so a
 * typo is one line naming the path and the reason (exit 2) rather than a Node
 * error object once the work has begun.
 */
import { accessSync, constants, statSync } from "node:fs";

export type InputPath =
  | { kind: "file" }
  | { kind: "folder" }
  | { kind: "missing" }
  /** It exists but cannot be read (or, for a folder, listed): `reason` says why. */
  | { kind: "unreadable"; reason: string };

export function inspectInputPath(path: string): InputPath {
  let folder: boolean;
  try {
    folder = statSync(path).isDirectory();
  } catch (error) {
    return failure(error);
  }
  try {
    // Anything but a folder is read as a stream, so a pipe such as bash's `<(zcat x.jsonl.gz)` is an input too.
    accessSync(path, folder ? constants.R_OK | constants.X_OK : constants.R_OK);
  } catch (error) {
    return failure(error);
  }
  return folder ? { kind: "folder" } : { kind: "file" };
}

function failure(error: unknown): InputPath {
  const code = (error as NodeJS.ErrnoException).code;
  // ENOTDIR: a part of the path before the last is a file.
  if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
  if (code === "EACCES" || code === "EPERM") return { kind: "unreadable", reason: "not readable (permission denied)" };
  return { kind: "unreadable", reason: `not readable (${code ?? String(error)})` };
}
