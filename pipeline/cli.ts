/**
 * `npm run pipeline -- <command>`: the batch side.
 *
 *   build --input FILE.jsonl [--input …] [--dataset NAME]
 *       Builds an artifact set from VideoRecord JSONL files and publishes it
 *       as DATA_DIR/current (atomically; the previous set is kept for rollback).
 *   demo
 *       Builds and publishes the generated demo dataset if DATA_DIR has none.
 *   run --channels FILE [--dry-run] [--limit N] [--concurrency N] [--rate N/s] [--no-build] …
 *       The scheduled ingestion run: crawl the channels, fetch missing
 *       transcripts, build and publish (see pipeline/README.md and RUN_USAGE).
 *
 * Exit codes: 0 done, 1 failed, 2 bad usage; `run` adds 3 (another run holds
 * the lock), 4 (finished with failures a later run may fix), 130 (interrupted).
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../server/config.js";
import { buildArtifacts } from "./build.js";
import { ensureDemoArtifacts } from "./demo.js";
import { newBuildDir, publishBuild } from "./publish.js";
import { readJsonlFiles } from "./read-jsonl.js";
import { runCommand } from "./run/run-command.js";

const USAGE = `usage: npm run pipeline -- build --input FILE.jsonl [--input FILE.jsonl …] [--dataset NAME]
       npm run pipeline -- demo
       npm run pipeline -- run --channels FILE [--dry-run] [--limit N] [--concurrency N] [--rate N/s] [--no-build]
                               (npm run pipeline -- run --help for every option)`;

const log = (message: string) => console.error(`[pipeline] ${message}`);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  if (command === "run") return runCommand(rest, config);
  if (command === "build") {
    const { values } = parseArgs({
      args: rest,
      options: { input: { type: "string", multiple: true }, dataset: { type: "string", default: "custom" } },
    });
    if (!values.input?.length) {
      console.error(USAGE);
      return 2;
    }
    const dir = newBuildDir(config.dataDir);
    let invalid = 0;
    const result = await buildArtifacts({
      records: readJsonlFiles(values.input),
      outDir: dir,
      dataset: values.dataset,
      log,
      onInvalid: (error, index) => {
        invalid++;
        if (invalid <= 20) log(`record ${index} skipped: ${error.message.split("\n")[0]}`);
      },
    });
    await publishBuild(config.dataDir, dir);
    log(`published ${dir}: ${JSON.stringify(result.manifest.counts)} (${result.invalidRecords} invalid records) in ${result.seconds.toFixed(1)} s`);
    return 0;
  }
  if (command === "demo") {
    const { built } = await ensureDemoArtifacts(config.dataDir, log);
    if (!built) log(`${config.dataDir} already has a published artifact set; nothing to do`);
    return 0;
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || (error instanceof Error && error.name === "JsonlError")) console.error(error.message);
    else console.error(error);
    process.exit(1);
  },
);
