/**
 * `npm run pipeline -- export …`: the command line of an export and of its
 * check. Exit codes as every pipeline command's (run/exit-codes.ts): 0 done
 * (or every file matches), 1 failed (or a file differs: named on stderr),
 * 2 bad usage, 130 interrupted by SIGTERM/SIGINT (no manifest written, no
 * partial file under a final name).
 */
import { parseArgs } from "node:util";
import { BuildInterrupted } from "../build/interrupt.js";
import { EXIT } from "../run/exit-codes.js";
import { EXPORT_FORMATS, type ExportFormat } from "./dataset-schema.js";
import { ExportError, exportDataset } from "./export-dataset.js";
import { ExportReadError, verifyExport } from "./read-export.js";

import { EXPORT_USAGE } from "./usage.js";

const log = (message: string) => console.error(`[export] ${message}`);

export async function exportCommand(args: string[], dataDir: string): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        format: { type: "string" },
        out: { type: "string" },
        set: { type: "string" },
        "shard-rows": { type: "string" },
        verify: { type: "string" },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${EXPORT_USAGE}`);
    return EXIT.usage;
  }
  if (values.verify !== undefined) return verifyCommand(values.verify);
  const format = values.format as ExportFormat | undefined;
  const shardRows = values["shard-rows"] === undefined ? undefined : Number(values["shard-rows"]);
  if (!format || !EXPORT_FORMATS.includes(format) || !values.out || (shardRows !== undefined && !(Number.isInteger(shardRows) && shardRows > 0))) {
    console.error(EXPORT_USAGE);
    return EXIT.usage;
  }
  const controller = new AbortController();
  const stop = (name: string) => {
    log(`${name}: stopping the export (no manifest will be written)`);
    controller.abort(new Error(`interrupted by ${name}`));
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  try {
    const manifest = await exportDataset({
      dataDir,
      format,
      outDir: values.out,
      set: values.set,
      log,
      signal: controller.signal,
      ...(shardRows !== undefined ? { limits: { shardRows } } : {}),
    });
    const files = Object.values(manifest.files);
    const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
    log(`${values.out}: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB; ${JSON.stringify(manifest.counts)}`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof BuildInterrupted) {
      console.error(`${error.message}; ${values.out} is incomplete (it has no manifest.json)`);
      return EXIT.interrupted;
    }
    if (error instanceof ExportError) {
      console.error(error.message);
      return EXIT.failed;
    }
    throw error;
  }
}

async function verifyCommand(dir: string): Promise<number> {
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
