/**
 * The `export` command's flags, checked before anything is read. Each problem
 * is a UsageError whose message says what is wrong in one line, printed above
 * the usage (exit 2): the usage alone does not tell which flag was wrong.
 */
import { parseArgs } from "node:util";
import { UsageError } from "../command/exit-codes.js";
import { EXPORT_FORMATS, type ExportFormat } from "./dataset-schema.js";

export type ExportArgs =
  | { command: "verify"; dir: string }
  | { command: "export"; format: ExportFormat; out: string; set: string | undefined; shardRows: number | undefined };

export function parseExportArgs(args: readonly string[]): ExportArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        format: { type: "string" },
        out: { type: "string" },
        set: { type: "string" },
        "shard-rows": { type: "string" },
        verify: { type: "string" },
      },
    }));
  } catch (error) {
    throw new UsageError(`export: ${(error as Error).message}`);
  }
  if (values.verify !== undefined) {
    // A check writes nothing, so an option meant for an export would be ignored without a word.
    const other = Object.keys(values).find((name) => name !== "verify");
    if (other !== undefined) throw new UsageError(`export: --verify takes no other option, not --${other}`);
    if (values.verify === "") throw new UsageError("export: --verify is empty: the export folder to check");
    return { command: "verify", dir: values.verify };
  }
  const { format, out } = values;
  if (!format && !out) throw new UsageError("export: --format and --out are missing (or --verify DIR, to check an export)");
  if (!format) throw new UsageError(`export: --format is missing: ${EXPORT_FORMATS.join(" or ")}`);
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`export: --format must be ${EXPORT_FORMATS.join(" or ")}, not ${format}`);
  }
  if (!out) throw new UsageError("export: --out is missing: the new or empty folder to write the export to");
  const rows = values["shard-rows"];
  let shardRows: number | undefined;
  if (rows !== undefined) {
    shardRows = Number(rows);
    if (!/^\d+$/.test(rows) || !Number.isSafeInteger(shardRows) || shardRows < 1) {
      throw new UsageError(`export: --shard-rows must be a whole number, at least 1, not ${rows}`);
    }
  }
  return { command: "export", format: format as ExportFormat, out, set: values.set, shardRows };
}
