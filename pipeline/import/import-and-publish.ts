/**
 * `build --input` as one step that either happens whole or not at all: the
 * input is validated into a staging area, the set is built from the state
 * with it and published, and only then does the input join the state
 * (import-staging.ts). An input without one valid record publishes nothing.
 */
import { currentBuildName } from "../publish/publish.js";
import { buildAndPublish, type BuildAndPublishOptions, type PublishedBuild } from "../build/build-and-publish.js";
import type { InputItem } from "../input/input-item.js";
import { importRecords, type ImportResult, type SkippedRecord } from "./import-records.js";
import { ImportStaging } from "../state/import-staging.js";
import type { PipelineState } from "../state/open-state.js";

export class NothingToImportError extends Error {
  override name = "NothingToImportError";
}

/** The set with the import was published (and the import folded in), then a later step failed: pruning old builds, trimming the shared store. */
export class PublishedThenFailedError extends Error {
  override name = "PublishedThenFailedError";
  constructor(
    readonly build: string,
    cause: unknown,
  ) {
    super(`published ${build} with the input, which joined the pipeline state; then: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export interface ImportAndPublishOptions extends Omit<BuildAndPublishOptions, "staging"> {
  input: AsyncIterable<InputItem> | Iterable<InputItem>;
  onSkip?: (skipped: SkippedRecord) => void;
}

export interface ImportAndPublishResult {
  imported: ImportResult;
  built: PublishedBuild | undefined;
}

/**
 * Imports and publishes; throws NothingToImportError when no record of the
 * input is valid, and whatever the build or publish throws, leaving the
 * state's records as they were.
 */
export async function importAndPublish(options: ImportAndPublishOptions): Promise<ImportAndPublishResult> {
  const { state, dataDir } = options;
  await settleImport(state, dataDir, options.log);
  const staging = new ImportStaging(state);
  try {
    const imported = await importRecords(staging, options.input, options.onSkip, options.signal);
    if (imported.records === 0) {
      throw new NothingToImportError(`no valid record in the input (${imported.invalid} skipped): nothing was imported or published`);
    }
    const { input: _input, onSkip: _onSkip, ...build } = options;
    return { imported, built: await buildAndPublish({ ...build, staging }) };
  } catch (error) {
    const noted = staging.publishingBuild();
    if (noted !== undefined && noted === (await currentBuildName(dataDir))) throw new PublishedThenFailedError(noted, error);
    throw error;
  } finally {
    // Nothing staged survives the command: folded if its set was published, else dropped.
    await settleImport(state, dataDir);
  }
}

/**
 * Finishes or undoes an import a killed process left staged (ImportStaging.settle).
 * Every command that writes the state's records calls it first, under the run lock.
 */
export async function settleImport(state: PipelineState, dataDir: string, log?: (message: string) => void): Promise<void> {
  const staging = new ImportStaging(state);
  const current = await currentBuildName(dataDir);
  const outcome = staging.settle(current);
  if (outcome === "folded" && current !== undefined) {
    state.markPublished({ build: current, generation: state.recordsGeneration() });
    log?.(`folded the records of an import published as ${current} into the pipeline state`);
  } else if (outcome === "dropped") log?.("dropped the records of an import that was not published");
}

/** Records as input items, each located by its position under `where`. */
export function inputOf(values: Iterable<unknown>, where = "input"): InputItem[] {
  return [...values].map((value, i) => ({ where: `${where} #${i + 1}`, value }));
}
