/**
 * `npm run pipeline -- <command>`: the batch side.
 *
 *   build --input FILE.jsonl|DIR [--input …] [--dataset NAME] [--force]
 *       Adds the VideoRecords of JSONL files (or of an export folder, Parquet
 *       or JSON Lines: see export/) to the pipeline state, then
 *       builds the state (and the live store) into an artifact set and
 *       publishes it as DATA_DIR/current, under the same lock and guard as `run`.
 *   export --format parquet|jsonl --out DIR [--set BUILD_ID] | export --verify DIR
 *       Writes the published set (or a named one) and the live store's newer
 *       records as a dataset of Parquet or JSON Lines shards with a dataset
 *       card and a manifest; or checks such a folder (export/export-command.ts).
 *   demo
 *       Builds and publishes the generated demo dataset if DATA_DIR has none.
 *   run --channels FILE [--dry-run] [--limit N] [--concurrency N] [--rate N/s] [--no-build] …
 *       The scheduled ingestion run: crawl the channels, fetch missing
 *       transcripts, build and publish (see pipeline/README.md and RUN_USAGE).
 *
 * Exit codes: 0 done, 1 failed, 2 bad usage, 3 (another run holds the lock),
 * 5 (the new set would drop most of the served one: see --force), 130
 * (interrupted by SIGINT/SIGTERM: nothing published); `run` adds 4 (finished
 * with failures a later run may fix).
 */
import { parseArgs } from "node:util";
import { statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadSettings } from "../settings/settings.js";
import { dataDirLayout } from "./artifact/layout.js";
import { BuildInterrupted } from "./build/interrupt.js";
import { ensureDemoArtifacts } from "./demo.js";
import { EXPORT_USAGE } from "./export/usage.js";
import { ExportReadError, exportRecords, readExportManifest } from "./export/read-export.js";
import { readJsonl } from "./read-jsonl.js";
import { acquireLock, LockHeldError } from "./run/acquire-lock.js";
import { buildAndPublish } from "./run/build-and-publish.js";
import { EXIT } from "./run/exit-codes.js";
import { importRecords } from "./run/import-records.js";
import { PipelineState } from "./run/open-state.js";
import { PublishRefused } from "./run/publish-guard.js";
import { runCommand } from "./run/run-command.js";

const USAGE = `usage: npm run pipeline -- build --input FILE.jsonl|DIR [--input FILE.jsonl|DIR …] [--dataset NAME] [--force]
       npm run pipeline -- demo
${EXPORT_USAGE.replace("usage: ", "       ")}
       npm run pipeline -- run --channels FILE [--dry-run] [--limit N] [--concurrency N] [--rate N/s] [--no-build]
                               (npm run pipeline -- run --help for every option)`;

const log = (message: string) => console.error(`[pipeline] ${message}`);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Only the pipeline's own settings: a bad server setting such as PORT does not stop it.
  const config = loadSettings("pipeline");
  if (command === "run") return runCommand(rest, config);
  // Loaded on use: the export's Parquet writer is a native library the other commands do not need.
  if (command === "export") return (await import("./export/export-command.js")).exportCommand(rest, config.dataDir);
  if (command === "build") {
    const { values } = parseArgs({
      args: rest,
      options: {
        input: { type: "string", multiple: true },
        dataset: { type: "string", default: "custom" },
        force: { type: "boolean", default: false },
      },
    });
    if (!values.input?.length) {
      console.error(USAGE);
      return 2;
    }
    return buildCommand(config.dataDir, values.input, values.dataset, values.force);
  }
  if (command === "demo") {
    const { built } = await ensureDemoArtifacts(config.dataDir, log);
    if (!built) log(`${config.dataDir} already has a published artifact set; nothing to do`);
    return 0;
  }
  console.error(USAGE);
  return 2;
}

/** The values of every input in order: a JSON Lines file's lines, an export folder's videos (Parquet or JSON Lines, as its manifest says). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function* inputRecords(inputs: readonly string[]): AsyncGenerator<unknown> {
  for (const input of inputs) {
    if (isDirectory(input)) {
      // A folder without an export manifest is refused by readExportManifest, saying so.
      const manifest = readExportManifest(input);
      log(`${input}: an export of ${manifest.counts.videos} videos (${manifest.dataFormat}, build ${manifest.source.buildId})`);
      yield* exportRecords(input);
    } else yield* readJsonl(input);
  }
}

/** `build --input`: under the run lock, the input joins the pipeline state, and the state is built and published. */
async function buildCommand(dataDir: string, inputs: string[], dataset: string, force: boolean): Promise<number> {
  const layout = dataDirLayout(dataDir);
  let lock;
  try {
    lock = acquireLock(layout.lock);
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    console.error(error.message);
    return EXIT.locked;
  }
  const state = PipelineState.open(layout.state);
  // SIGTERM/SIGINT stop the import or the build at its next check; nothing is published.
  const controller = new AbortController();
  const stop = (name: string) => {
    log(`${name}: stopping the build (nothing will be published)`);
    controller.abort(new Error(`interrupted by ${name}`));
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  try {
    let invalid = 0;
    const onInvalid = (error: Error, index: number) => {
      invalid++;
      if (invalid <= 20) log(`record ${index} skipped: ${error.message.split("\n")[0]}`);
    };
    const imported = await importRecords(state, inputRecords(inputs), onInvalid, controller.signal);
    log(`imported ${imported.records} records into the pipeline state (${imported.invalid} invalid)`);
    const built = await buildAndPublish({ dataDir, state, log, dataset, force, signal: controller.signal });
    if (!built) {
      log("nothing to build: no record in the input, the pipeline state or the live store");
      return EXIT.ok;
    }
    log(`published ${built.dir}: ${JSON.stringify(built.counts)} in ${built.seconds.toFixed(1)} s`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof BuildInterrupted) {
      console.error(error.message);
      return EXIT.interrupted;
    }
    if (error instanceof ExportReadError) {
      console.error(error.message);
      return EXIT.failed;
    }
    if (!(error instanceof PublishRefused)) throw error;
    console.error(error.message);
    return EXIT.refused;
  } finally {
    state.close();
    lock.release();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || (error instanceof Error && error.name === "JsonlError")) console.error(error.message);
    else console.error(error);
    process.exit(1);
  },
);
