/**
 * `npm run pipeline -- export …`: the command line of an export and of its
 * check. Exit codes as every pipeline command's (command/exit-codes.ts): 0 done
 * (or every file matches), 1 failed (or a file differs: named on stderr),
 * 2 bad usage, 130 interrupted by SIGTERM/SIGINT (no manifest written, no
 * partial file under a final name).
 */
import { BuildInterrupted } from "../command/interrupt.js";
import { inspectInputPath } from "../input/inspect-input-path.js";
import { EXIT, UsageError } from "../command/exit-codes.js";
import { runAsCommand } from "../command/run-as-command.js";
import { ExportError, exportDataset } from "./export-dataset.js";
import { parseExportArgs } from "./parse-export-args.js";
import { ExportReadError, verifyExport } from "./read-export.js";
import { EXPORT_USAGE } from "./usage.js";

const log = (message: string) => console.error(`[export] ${message}`);

export async function exportCommand(args: string[], dataDir: string): Promise<number> {
  let parsed;
  try {
    parsed = parseExportArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${EXPORT_USAGE}`);
    return EXIT.usage;
  }
  if (parsed.command === "verify") return verifyCommand(parsed.dir);
  const { format, out, set, shardRows } = parsed;
  // A new folder is made; an existing one is checked for emptiness by the export, which needs it to be a folder it can read.
  const target = inspectInputPath(out);
  if (target.kind === "file" || target.kind === "unreadable") {
    console.error(`export: --out ${out}${target.kind === "file" ? " is a file, not a folder" : `: ${target.reason}`}`);
    return EXIT.usage;
  }
  return runAsCommand({
    stop: { first: (name) => log(`${name}: stopping the export (no manifest will be written)`), again: "default" },
    exits: [
      [BuildInterrupted, EXIT.interrupted, (error) => `${error.message}; ${out} is incomplete (it has no manifest.json)`],
      [ExportError, EXIT.failed],
    ],
    work: async ({ signal }) => {
      const manifest = await exportDataset({ dataDir, format, outDir: out, set, log, signal, ...(shardRows !== undefined ? { limits: { shardRows } } : {}) });
      const files = Object.values(manifest.files);
      const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
      log(`${out}: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB; ${JSON.stringify(manifest.counts)}`);
      return EXIT.ok;
    },
  });
}

async function verifyCommand(dir: string): Promise<number> {
  // A path that is not a folder is a mistyped argument (exit 2); a folder without a manifest is a failed check (exit 1).
  const found = inspectInputPath(dir);
  if (found.kind !== "folder") {
    const why = found.kind === "missing" ? ": no such folder" : found.kind === "file" ? " is a file, not an export folder" : `: ${found.reason}`;
    console.error(`export: --verify ${dir}${why}`);
    return EXIT.usage;
  }
  try {
    const { manifest, problems } = await verifyExport(dir);
    for (const { file, problem } of problems) console.error(`${file}: ${problem}`);
    const count = Object.keys(manifest.files).length;
    if (problems.length > 0) {
      console.error(`${dir}: ${problems.length} of ${count} files do not match the manifest`);
      return EXIT.failed;
    }
    log(`${dir}: all ${count} files match the manifest`);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof ExportReadError)) throw error;
    console.error(error.message);
    return EXIT.failed;
  }
}
