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
 *   install-set DIR [--force]
 *       Publishes a set built on another machine: its copied builds/<id>
 *       folder is copied in, checked against its manifest and published
 *       under the same lock and guard as `run` (publish/install-set.ts).
 *   run --channels FILE [--dry-run] [--limit N] [--concurrency N] [--rate N/s] [--no-build] …
 *       The scheduled ingestion run: crawl the channels, fetch missing
 *       transcripts, build and publish (see pipeline/README.md and RUN_USAGE).
 *       With DATABASE_URL the fetches go through the shared fetch queue.
 *   worker [--until-empty] [--concurrency N]
 *       Works the shared fetch queue's jobs (DATABASE_URL) on this host
 *       (fetch/queue/worker-command.ts).
 *
 * Exit codes: 0 done, 1 failed, 2 bad usage, 3 (another run holds the lock),
 * 5 (the new set would drop most of the served one: see --force), 130
 * (interrupted by SIGINT/SIGTERM: nothing published); `run` adds 4 (finished
 * with failures a later run may fix).
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { join } from "node:path";
import { ConfigError, loadSettings } from "../settings/settings.js";
import { dataDirLayout } from "./artifact/layout/index.js";
import { BuildInterrupted } from "./command/interrupt.js";
import { ensureDemoArtifacts } from "./corpus/demo-set.js";
import { InstallError, installSet } from "./publish/install-set.js";
import { ArtifactError } from "./artifact/manifest/index.js";
import { PublishError } from "./publish/publish.js";
import { EXPORT_USAGE } from "./export/usage.js";
import { ExportReadError } from "./export/read-export.js";
import { JsonlError } from "./input/read-jsonl.js";
import { checkBuildInputs, inputItems, verifyExportInputs, type BuildInput } from "./import/import-inputs.js";
import { runAsCommand } from "./command/run-as-command.js";
import { buildAndPublish } from "./build/build-and-publish.js";
import { EXIT, UsageError } from "./command/exit-codes.js";
import { importAndPublish, NothingToImportError, PublishedThenFailedError, settleImport } from "./import/import-and-publish.js";
import { skipReporter } from "./import/import-records.js";
import { PipelineState } from "./state/open-state.js";
import { PublishRefused } from "./publish/publish-guard.js";
import { RUN_USAGE } from "./run/parse-run-args.js";
import { runCommand } from "./run/run-command.js";
import type { EmbedderSettings } from "./embeddings/create-embedder.js";
import { WORKER_USAGE, workerCommand } from "./fetch/queue/worker-command.js";

const USAGE = `usage: npm run pipeline -- <command> [options]

commands:
  run --channels FILE [options]   crawl the channels, fetch the transcripts not stored, build and publish
  worker [--until-empty]          work the shared fetch queue's jobs (DATABASE_URL) until SIGTERM or empty
  build [--input FILE.jsonl|DIR …]  add VideoRecords (JSON Lines, or an export folder) to the pipeline state, build and publish
  export --format parquet|jsonl --out DIR | --verify DIR
                                  write the published set as Parquet or JSON Lines with a dataset card; or check such a folder
  demo                            build and publish the generated demo dataset if DATA_DIR has no set
  install-set DIR [--force]       check a set copied from another machine (its builds/<id> folder) and publish it

npm run pipeline -- <command> --help   the options of a command
settings: DATA_DIR, YOUTUBE_ORIGIN, YOUTUBE_PROXY_URLS, YOUTUBE_MAX_BLOCKED_RETRIES (docs/settings.md)

exit codes: 0 ok (also: nothing new, nothing built), 1 failed, 2 usage, 3 another run holds the lock,
            4 finished with failures a later run may fix (run), 5 publish refused (see --force), 130 interrupted`;

const BUILD_USAGE = `usage: npm run pipeline -- build [--input FILE.jsonl|DIR …] [--dataset NAME] [--force]

  --input FILE.jsonl|DIR  VideoRecords as JSON Lines, or a folder written by export (Parquet or JSON Lines,
                          as its manifest says, and checked against it first); repeatable; a record that is
                          not valid, or a line that is not JSON, is reported and skipped
  --dataset NAME          name recorded in the manifest (default custom)
  --force                 publish even a set that drops most of the served set's transcripts

The pipeline state (DATA_DIR/pipeline/state.db) with the input and the server's live store
is built into a new artifact set and published, under the same lock as run; the input joins
the state only once that set is published. Without --input, the state and the live store
are built and published. All or nothing: an input with no valid record, an export that does
not match its manifest, a refused publish or a stop leaves the state as it was.

exit codes: 0 ok, 1 failed (also: no valid record in the input), 2 usage, 3 another run holds the lock,
            4 published (and the input folded in), then a later step failed, 5 publish refused (see --force),
            130 interrupted`;

const DEMO_USAGE = `usage: npm run pipeline -- demo

Builds and publishes the generated demo dataset (3,000 videos, about 20 s) into DATA_DIR,
only if DATA_DIR has no published set; otherwise it does nothing.

exit codes: 0 ok (built, or nothing to do), 1 failed`;

const INSTALL_SET_USAGE = `usage: npm run pipeline -- install-set DIR [--force]

  DIR      the builds/<id> folder of a set published on another machine, copied here by any means
           (rsync, object storage, …); its name becomes the build id here
  --force  publish even a set that drops most of the served set's transcripts (never one that
           would stop serving transcripts this machine fetched live: that refusal stands)

The set's files are copied into DATA_DIR/builds under a temporary name and each is checked
against the manifest (size and SHA-256): a file that differs is named and nothing is published.
The checked set is renamed to builds/<id> and published as DATA_DIR/current, under the same lock
and guard as run; a running server switches to it without hashing it again.

exit codes: 0 ok (also: already published), 1 failed (a file differs, not a set's folder), 2 usage,
            3 another run holds the lock, 5 publish refused (see --force), 130 interrupted (nothing published)`;

const EXPORT_HELP = `${EXPORT_USAGE}

  --format parquet|jsonl  Parquet (zstd) or gzip'd JSON Lines shards of the transcripts and videos tables
  --out DIR               a new or empty folder; the dataset card (README.md) and manifest.json are written last
  --set BUILD_ID          a set in DATA_DIR/builds instead of the published one
  --shard-rows N          at most N rows a shard (default 1000000; a shard also ends at about 1 GB uncompressed)
  --verify DIR            check every file of an export against its manifest and name any that differs

exit codes: 0 ok, 1 failed (or a file differs), 2 usage, 130 interrupted (no manifest is written)`;

/** A bad command line: what is wrong on one line, then the command's usage line (its --help has the rest); exit 2. */
function usageError(reason: string, usage: string): number {
  console.error(`${reason}\n${usage.split("\n")[0]}`);
  return EXIT.usage;
}

/** The result of `parse` (parseArgs), or its refusal (an unknown option, a missing value) reported by usageError and that exit code. */
function parsedOr<T>(command: string, usage: string, parse: () => T): T | number {
  try {
    return parse();
  } catch (error) {
    return usageError(`${command}: ${(error as Error).message}`, usage);
  }
}

const wantsHelp = (args: readonly string[]): boolean => args.includes("--help") || args.includes("-h");

const log = (message: string) => console.error(`[pipeline] ${message}`);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    // Asked for: stdout and 0; no command at all is a usage error.
    if (command === undefined) console.error(`pipeline: a command is missing\n${USAGE}`);
    else console.log(USAGE);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  // Before the settings are read: help works whatever the environment holds.
  const help = { build: BUILD_USAGE, demo: DEMO_USAGE, run: RUN_USAGE, worker: WORKER_USAGE, export: EXPORT_HELP, "install-set": INSTALL_SET_USAGE }[command];
  if (help !== undefined && wantsHelp(rest)) {
    console.log(help);
    return EXIT.ok;
  }
  // Only the pipeline's own settings: a bad server setting such as PORT does not stop it.
  const config = loadSettings("pipeline");
  if (command === "run") return runCommand(rest, config);
  if (command === "worker") return workerCommand(rest, config);
  // Loaded on use: the export's Parquet writer is a native library the other commands do not need.
  if (command === "export") return (await import("./export/export-command.js")).exportCommand(rest, config.dataDir);
  if (command === "build") {
    const parsed = parsedOr("build", BUILD_USAGE, () =>
      parseArgs({
        args: rest,
        options: {
          input: { type: "string", multiple: true },
          dataset: { type: "string", default: "custom" },
          force: { type: "boolean", default: false },
        },
      }),
    );
    if (typeof parsed === "number") return parsed;
    const { values } = parsed;
    let inputs: BuildInput[];
    try {
      inputs = checkBuildInputs(values.input ?? []);
    } catch (error) {
      if (!(error instanceof UsageError || error instanceof ExportReadError)) throw error;
      console.error(error.message);
      return error instanceof UsageError ? EXIT.usage : EXIT.failed;
    }
    return buildCommand(config.dataDir, inputs, values.dataset, values.force, config.databaseUrl, config);
  }
  if (command === "install-set") {
    const parsed = parsedOr("install-set", INSTALL_SET_USAGE, () =>
      parseArgs({ args: rest, options: { force: { type: "boolean", default: false } }, allowPositionals: true }),
    );
    if (typeof parsed === "number") return parsed;
    const { values, positionals } = parsed;
    if (positionals.length === 0) return usageError("install-set: DIR is missing: the builds/<id> folder copied from another machine", INSTALL_SET_USAGE);
    if (positionals.length > 1) return usageError(`install-set: takes one DIR, not ${positionals.length}`, INSTALL_SET_USAGE);
    return installSetCommand(config.dataDir, positionals[0]!, values.force);
  }
  if (command === "demo") {
    if (rest.length > 0) return usageError(`demo: takes no arguments, not ${rest.join(" ")}`, DEMO_USAGE);
    const { built } = await ensureDemoArtifacts(config.dataDir, log, config);
    if (!built) log(`${config.dataDir} already has a published artifact set; nothing to do`);
    return 0;
  }
  console.error(`Unknown command: ${command}\n\n${USAGE}`);
  return EXIT.usage;
}

/** `build --input`: under the run lock, the input is validated, built with the pipeline state and published, and then joins the state (import-and-publish.ts). */
function buildCommand(dataDir: string, inputs: BuildInput[], dataset: string, force: boolean, databaseUrl: string | undefined, embedding: EmbedderSettings): Promise<number> {
  const layout = dataDirLayout(dataDir);
  return runAsCommand({
    // Before the lock: an input that cannot be read, or an export that does not match its manifest, changes nothing.
    before: async () => {
      for (const line of await verifyExportInputs(inputs)) log(line);
    },
    // With DATABASE_URL also the lock every machine sharing it takes (shared-lock.ts).
    lock: { lockPath: layout.lock, databaseUrl },
    // SIGTERM/SIGINT stop the import or the build at its next check; nothing is published.
    stop: { first: (name) => log(`${name}: stopping the build (nothing will be published)`), again: "default" },
    exits: [
      [UsageError, EXIT.usage],
      [BuildInterrupted, EXIT.interrupted],
      [PublishedThenFailedError, EXIT.partial],
      [ExportReadError, EXIT.failed],
      [NothingToImportError, EXIT.failed],
      [JsonlError, EXIT.failed],
      [PublishError, EXIT.failed],
      [PublishRefused, EXIT.refused],
    ],
    work: async ({ signal }) => {
      const state = PipelineState.open(layout.state);
      try {
        return inputs.length === 0
          ? await buildState({ dataDir, state, dataset, force, signal, databaseUrl, embedding })
          : await importInputs({ dataDir, state, dataset, force, signal, databaseUrl, inputs, embedding });
      } finally {
        state.close();
      }
    },
  });
}

interface BuildWork {
  dataDir: string;
  state: PipelineState;
  dataset: string;
  force: boolean;
  signal: AbortSignal;
  databaseUrl: string | undefined;
  /** The embedder settings: the set gets vectors when one is configured. */
  embedding: EmbedderSettings;
}

/** `build` without --input: the state and the live store, built and published. */
async function buildState({ dataDir, state, dataset, force, signal, databaseUrl, embedding }: BuildWork): Promise<number> {
  await settleImport(state, dataDir, log);
  const built = await buildAndPublish({ dataDir, state, log, dataset, force, signal, embedding, ...(databaseUrl !== undefined ? { databaseUrl } : {}) });
  if (!built) log("nothing to build: no record in the pipeline state or the live store");
  else log(`published ${built.dir}: ${JSON.stringify(built.counts)} in ${built.seconds.toFixed(1)} s`);
  return EXIT.ok;
}

/** `build --input`: the input's valid records, built with the state, published, then folded into the state; skipped records said by kind. */
async function importInputs({ inputs, databaseUrl, ...work }: BuildWork & { inputs: BuildInput[] }): Promise<number> {
  const skips = skipReporter(log);
  let imported, built;
  try {
    ({ imported, built } = await importAndPublish({
      ...work,
      log,
      input: inputItems(inputs),
      onSkip: skips.skip,
      ...(databaseUrl !== undefined ? { databaseUrl } : {}),
    }));
  } finally {
    skips.finish();
  }
  log(`imported ${imported.records} records (${imported.invalid} skipped)`);
  log(`published ${built!.dir}: ${JSON.stringify(built!.counts)} in ${built!.seconds.toFixed(1)} s`);
  return EXIT.ok;
}

/** `install-set DIR`: under the run lock, the copied set is checked and published (publish/install-set.ts). */
function installSetCommand(dataDir: string, source: string, force: boolean): Promise<number> {
  const layout = dataDirLayout(dataDir);
  return runAsCommand({
    // The DATA_DIR's lock only: an install folds nothing from, and trims nothing in, a shared live store.
    lock: { lockPath: layout.lock },
    stop: { first: (name) => log(`${name}: stopping the install (nothing will be published)`), again: "default" },
    exits: [
      [BuildInterrupted, EXIT.interrupted],
      [PublishRefused, EXIT.refused],
      [InstallError, EXIT.failed],
      [ArtifactError, EXIT.failed],
      [PublishError, EXIT.failed],
    ],
    work: async ({ signal }) => {
      // An import killed just after its publish is folded in before `current` moves on, or its records would be dropped.
      if (existsSync(layout.state)) {
        const state = PipelineState.open(layout.state);
        try {
          await settleImport(state, dataDir, log);
        } finally {
          state.close();
        }
      }
      const installed = await installSet({ dataDir, source, force, log, signal });
      if (installed.outcome !== "served") {
        const how = installed.outcome === "copied" ? `copied and checked ${installed.bytes} bytes` : "already in builds/, checked";
        log(`published ${installed.dir}: ${JSON.stringify(installed.manifest.counts)} (${how} in ${installed.seconds.toFixed(1)} s)`);
      }
      return EXIT.ok;
    },
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || (error instanceof Error && error.name === "JsonlError")) console.error(error.message);
    else console.error(error);
    process.exit(1);
  },
);
