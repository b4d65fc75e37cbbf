/**
 * `npm run bench -- --size N`: builds (or reuses) a synthetic corpus and its
 * artifact set under .bench/<N>, measures build, server, search, recall,
 * serving and the peers, prints one table and updates BENCHMARKS.md.
 * Run `npm run bench -- --help` for the options.
 */
import os from "node:os";
import { BenchUsageError, parseBenchArgs, usage } from "./bench/options.js";
import { resultRows, textTable, writeReport } from "./bench/report.js";
import { readFileSync } from "node:fs";
import { benchLayout } from "./bench/paths.js";
import { runBench, type BenchResults } from "./bench/run.js";
import { ablationTable } from "./bench/ablation.js";
import { SETTINGS } from "../server/config.js";

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage());
    return 0;
  }
  const options = parseBenchArgs(argv, os.cpus().length);
  const log = options.quiet ? () => {} : (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);
  // The server and the in-process peers read their memory and search settings from the environment: those set are part of the command.
  const settings = SETTINGS.filter((s) => (s.name.startsWith("SEARCH_") || s.name.endsWith("CACHE_MB")) && process.env[s.name] !== undefined).map(
    (s) => `${s.name}=${process.env[s.name]}`,
  );
  const command = [...settings, "npm run bench --", ...argv].join(" ");
  // --report-only: the table of the last run in --out (complete or not) again, e.g. after a run was stopped.
  const results = options.reportOnly
    ? (JSON.parse(readFileSync(benchLayout(options.out).results, "utf8")) as BenchResults)
    : await runBench(options, command, log);
  const rows = resultRows(results);
  console.log(textTable(rows));
  if (results.ablation) console.log(["", ...ablationTable(results.ablation, 8)].join("\n"));
  if (options.report !== "") {
    await writeReport(options.report, results);
    log(`updated ${options.report}`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof BenchUsageError ? error.message : error);
    process.exit(error instanceof BenchUsageError ? 2 : 1);
  },
);
