/**
 * `npm run pipeline -- <command>`: the batch side.
 *
 *   build --input FILE.jsonl [--input …] [--dataset NAME]
 *       Builds an artifact set from VideoRecord JSONL files and publishes it
 *       as DATA_DIR/current (atomically; the previous set is kept for rollback).
 *   demo
 *       Builds and publishes the generated demo dataset if DATA_DIR has none.
 *
 * Exit codes: 0 done, 1 failed, 2 bad usage.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../server/config.js";
import { buildArtifacts } from "./build.js";
import { ensureDemoArtifacts } from "./demo.js";
import { newBuildDir, publishBuild } from "./publish.js";
import { readJsonlFiles } from "./read-jsonl.js";

const USAGE = `usage: npm run pipeline -- build --input FILE.jsonl [--input FILE.jsonl …] [--dataset NAME]
       npm run pipeline -- demo`;

const log = (message: string) => console.error(`[pipeline] ${message}`);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
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
