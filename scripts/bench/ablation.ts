/**
 * `--phases ablation`: what each of search's memory helpers is worth. On
 * the same artifact set and query set, the server is started once with all
 * helpers, once with none, and once with each helper off
 * (`SEARCH_MEMORY_HELPERS`, server/search/memory/budget.ts; the word bitmaps
 * through `SEARCH_WORD_BITMAPS=off`). Each configuration records its start
 * time and RSS, its first sequential pass, and (after a restart, so the
 * result cache is empty again) its first pass at concurrency 8. With
 * `--drop-cache` the database is dropped from the page cache before each
 * first start, so every configuration starts from the disk.
 */
import { MEMORY_HELPERS } from "../../settings/rows.js";
import { timePaths, type LatencySummary } from "./latency.js";
import { dropFromPageCache } from "./page-cache.js";
import type { ServerProcess } from "./server-process.js";

export interface AblationConfig {
  name: string;
  env: Record<string, string>;
  /** Another checkout to run the server from (`--compare-tree`); default this one. */
  repoRoot?: string;
}

export interface AblationRow {
  name: string;
  env: Record<string, string>;
  startMs: number;
  /** Spawn to ready (/readyz); absent in results of runs before it was measured. */
  readyMs?: number;
  rssMiB: number;
  sequentialFirst: LatencySummary;
  concurrentFirst: LatencySummary;
}

/** "all", "none", then each helper off, then the word bitmaps off. */
export function ablationConfigs(): AblationConfig[] {
  return [
    { name: "all", env: { SEARCH_MEMORY_HELPERS: "all" } },
    { name: "none", env: { SEARCH_MEMORY_HELPERS: "none" } },
    ...MEMORY_HELPERS.map((helper) => ({ name: `-${helper}`, env: { SEARCH_MEMORY_HELPERS: `-${helper}` } })),
    { name: "-bitmaps", env: { SEARCH_MEMORY_HELPERS: "all", SEARCH_WORD_BITMAPS: "off" } },
  ];
}

export interface AblationOptions {
  /** Starts the server with these settings added to its environment, from `repoRoot` when given. */
  start: (env: Record<string, string>, repoRoot?: string) => Promise<ServerProcess>;
  /** The configurations, in order; default `ablationConfigs()`. */
  configs?: readonly AblationConfig[];
  /** Search paths of the query set, each with its query string. */
  paths: readonly string[];
  apiKey: string;
  concurrency: number;
  budgetSeconds: number;
  /** The database to drop from the page cache before each configuration's first start; undefined: none dropped. */
  dropCachePath: string | undefined;
  log: (line: string) => void;
}

export async function measureAblation(options: AblationOptions): Promise<AblationRow[]> {
  const rows: AblationRow[] = [];
  const pass = (server: ServerProcess, concurrency: number) =>
    timePaths(server.origin, options.paths, { concurrency, apiKey: options.apiKey, budgetSeconds: options.budgetSeconds });
  for (const config of options.configs ?? ablationConfigs()) {
    if (options.dropCachePath) dropFromPageCache(options.dropCachePath);
    let server = await options.start(config.env, config.repoRoot);
    try {
      const { startMs, readyMs } = server;
      const rssMiB = Math.round(server.rssBytes() / 2 ** 20);
      const sequentialFirst = (await pass(server, 1)).summary;
      // A fresh process, so the concurrent first pass meets an empty result cache too.
      await server.stop();
      server = await options.start(config.env, config.repoRoot);
      const concurrentFirst = (await pass(server, options.concurrency)).summary;
      rows.push({ name: config.name, env: config.env, startMs, readyMs, rssMiB, sequentialFirst, concurrentFirst });
      options.log(
        `ablation ${config.name}: start ${(startMs / 1000).toFixed(2)} s, ready ${(readyMs / 1000).toFixed(2)} s, RSS ${rssMiB} MiB, sequential p50 ${sequentialFirst.p50.toFixed(1)} / p99 ${sequentialFirst.p99.toFixed(1)} ms, concurrency ${options.concurrency} p99 ${concurrentFirst.p99.toFixed(1)} ms`,
      );
    } finally {
      await server.stop();
    }
  }
  return rows;
}

const ms = (v: number) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : "n/a");
const ratio = (v: number, all: number) => (Number.isFinite(v) && Number.isFinite(all) && all > 0 ? `${(v / all).toFixed(2)}×` : "n/a");

/** The ablation as a Markdown table: one row per configuration, its p99s also as a ratio to `baseline` (default "all"). */
export function ablationTable(rows: readonly AblationRow[], concurrency: number, baseline = "all", first = "helpers"): string[] {
  const all = rows.find((row) => row.name === baseline);
  const errors = (row: AblationRow) => row.sequentialFirst.errors + row.concurrentFirst.errors;
  return [
    `| ${first} | start s | ready s | RSS MiB | sequential first pass p50 / p99 ms | concurrency ${concurrency} first pass p99 ms | sequential p99 ÷ ${baseline} | concurrency ${concurrency} p99 ÷ ${baseline} |`,
    "|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (row) =>
        `| ${row.name}${errors(row) ? ` (${errors(row)} errors)` : ""} | ${(row.startMs / 1000).toFixed(2)} | ${row.readyMs === undefined ? "n/a" : (row.readyMs / 1000).toFixed(2)} | ${row.rssMiB.toLocaleString("en-US")} | ${ms(row.sequentialFirst.p50)} / ${ms(row.sequentialFirst.p99)} | ${ms(row.concurrentFirst.p99)} | ${all ? ratio(row.sequentialFirst.p99, all.sequentialFirst.p99) : "n/a"} | ${all ? ratio(row.concurrentFirst.p99, all.concurrentFirst.p99) : "n/a"} |`,
    ),
  ];
}

/**
 * `--compare-tree DIR`: this checkout and DIR's, alternated `rounds` times (default 2) on the same set and queries.
 * Which goes first alternates too (this tree in odd rounds, DIR's in even ones), so that whatever the first
 * server of a round pays or leaves behind (page cache, a warmer CPU) falls on both trees alike.
 */
export function compareConfigs(tree: string, label: string, rounds = 2): AblationConfig[] {
  const suffix = (round: number) => (round === 0 ? "" : round === 1 ? ", again" : `, round ${round + 1}`);
  return Array.from({ length: rounds }, (_, round) => {
    const pair: AblationConfig[] = [
      { name: `this tree${suffix(round)}`, env: {} },
      { name: `${label}${suffix(round)}`, env: {}, repoRoot: tree },
    ];
    return round % 2 === 0 ? pair : pair.reverse();
  }).flat();
}

/**
 * The side by side in one line per figure: the mean over the rounds of this
 * tree's figure ÷ the mean of the other's (sequential p50 and p99,
 * concurrency-8 p99, start).
 */
export function compareSummary(rows: readonly AblationRow[]): { figure: string; here: number; there: number; ratio: number }[] {
  const mine = rows.filter((row) => row.name.startsWith("this tree"));
  const theirs = rows.filter((row) => !row.name.startsWith("this tree"));
  const mean = (list: readonly AblationRow[], of: (row: AblationRow) => number) => list.reduce((sum, row) => sum + of(row), 0) / Math.max(1, list.length);
  const figures: [string, (row: AblationRow) => number][] = [
    ["sequential first pass p50", (row) => row.sequentialFirst.p50],
    ["sequential first pass p99", (row) => row.sequentialFirst.p99],
    ["concurrency 8 first pass p99", (row) => row.concurrentFirst.p99],
    ["start", (row) => row.startMs / 1000],
    ["ready", (row) => (row.readyMs ?? Number.NaN) / 1000],
  ];
  if (mine.length === 0 || theirs.length === 0) return [];
  return figures.map(([figure, of]) => {
    const here = mean(mine, of);
    const there = mean(theirs, of);
    return { figure, here, there, ratio: here / there };
  });
}
