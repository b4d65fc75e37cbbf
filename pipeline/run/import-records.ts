/**
 * `build --input`: records from files are validated and folded into the
 * pipeline state, so the set built next (and every later one) holds them
 * beside everything fetched before. Streams in batches: memory does not grow
 * with the input.
 */
import { checkpoint } from "../build/interrupt.js";
import { VideoRecord } from "../artifact/contract.js";
import type { ForeignRecord, PipelineState } from "./open-state.js";

const BATCH = 500;

export interface ImportResult {
  records: number;
  invalid: number;
}

export async function importRecords(
  state: PipelineState,
  source: AsyncIterable<unknown> | Iterable<unknown>,
  onInvalid: (error: Error, index: number) => void = () => {},
  /** Aborting stops the import between batches (BuildInterrupted); what was folded in stays. */
  signal?: AbortSignal,
): Promise<ImportResult> {
  const result: ImportResult = { records: 0, invalid: 0 };
  // One time for the whole import: a record of the input is newer than what the state held before it.
  const fetchedAt = new Date().toISOString();
  let batch: ForeignRecord[] = [];
  let index = 0;
  for await (const raw of source) {
    const parsed = VideoRecord.safeParse(raw);
    if (parsed.success) batch.push({ record: parsed.data, fetchedAt });
    else {
      result.invalid++;
      onInvalid(parsed.error, index);
    }
    index++;
    if (batch.length >= BATCH) {
      result.records += state.absorb(batch);
      batch = [];
      await checkpoint(signal);
    }
  }
  result.records += state.absorb(batch);
  return result;
}
