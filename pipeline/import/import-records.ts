/**
 * `build --input`: records from files are validated and staged beside the
 * pipeline state (import-staging.ts), to be folded into it once the set
 * built with them is published. Streams in batches: memory does not grow
 * with the input.
 *
 * A record that is not valid, or a line that is not JSON, is skipped with
 * where it was (a file's line, an export shard's row), the field and the
 * rule it broke; the rest is imported.
 */
import type { z } from "zod";
import { checkpoint } from "../command/interrupt.js";
import { VideoRecord } from "../artifact/contract/index.js";
import type { InputItem, SkipProblem } from "../input/input-item.js";
import type { ForeignRecord } from "../state/open-state.js";

const BATCH = 500;

export interface SkippedRecord extends SkipProblem {
  where: string;
}

export interface ImportResult {
  records: number;
  invalid: number;
}

export interface StagingSink {
  stage(records: readonly ForeignRecord[]): void;
}

export async function importRecords(
  staging: StagingSink,
  source: AsyncIterable<InputItem> | Iterable<InputItem>,
  onSkip: (skipped: SkippedRecord) => void = () => {},
  /** Aborting stops the import between batches (BuildInterrupted). */
  signal?: AbortSignal,
): Promise<ImportResult> {
  const result: ImportResult = { records: 0, invalid: 0 };
  // One time for the whole import: a record of the input is newer than what the state held before it.
  const fetchedAt = new Date().toISOString();
  let batch: ForeignRecord[] = [];
  for await (const item of source) {
    const problem = "problem" in item ? item.problem : undefined;
    const parsed = problem ? undefined : VideoRecord.safeParse((item as { value: unknown }).value);
    if (parsed?.success) batch.push({ record: parsed.data, fetchedAt });
    else {
      result.invalid++;
      onSkip({ where: item.where, ...(problem ?? firstProblem(parsed!.error)) });
    }
    if (batch.length >= BATCH) {
      staging.stage(batch);
      result.records += batch.length;
      batch = [];
      await checkpoint(signal);
    }
  }
  staging.stage(batch);
  result.records += batch.length;
  return result;
}

/** The first rule a record broke, with its field. */
export function firstProblem(error: z.ZodError): SkipProblem {
  const issue = error.issues[0];
  if (!issue) return { field: "", rule: "not a valid record" };
  const field = issue.path.map((part) => (typeof part === "number" ? "[]" : String(part))).join(".").replaceAll(".[]", "[]");
  return { field, rule: issue.message };
}

/**
 * Reports skipped records as an operator can read them: the first few of
 * each kind (field and rule) one line each, then, at `finish`, how many
 * more of each kind there were.
 */
export function skipReporter(log: (line: string) => void, perKind = 3): { skip: (skipped: SkippedRecord) => void; finish: () => void } {
  const kinds = new Map<string, number>();
  const describe = (p: SkipProblem) => (p.field ? `${p.field}: ${p.rule}` : p.rule);
  return {
    skip(skipped) {
      const kind = describe(skipped);
      const seen = (kinds.get(kind) ?? 0) + 1;
      kinds.set(kind, seen);
      if (seen <= perKind) log(`skipped ${skipped.where}: ${kind}`);
    },
    finish() {
      for (const [kind, seen] of kinds) if (seen > perKind) log(`skipped ${seen - perKind} more records for ${kind} (${seen} in all)`);
    },
  };
}
