/**
 * `npm run bench` options: one table of names, defaults and help, parsed with
 * exact messages for misuse.
 */
import { parseArgs } from "node:util";

export const PHASES = ["corpus", "server", "search", "recall", "serving", "soak", "peers", "ablation", "compare", "mcp", "workers", "redis", "dataset", "pg-peer", "ingest-limits", "semantic"] as const;
export type Phase = (typeof PHASES)[number];

/** Phases run only when listed: each starts servers of its own, writes GBs of scratch files, or needs Redis or PostgreSQL. */
const OPT_IN: readonly Phase[] = ["ablation", "compare", "mcp", "workers", "redis", "dataset", "pg-peer", "ingest-limits", "semantic"];

/** The phases run without `--phases`: all but the opt-in ones (the ablation alone starts the server twenty times, ablation.ts). */
export const DEFAULT_PHASES: readonly Phase[] = PHASES.filter((phase) => !OPT_IN.includes(phase));

export interface BenchOptions {
  /** Videos in the synthetic corpus. */
  size: number;
  /** Corpus seed; the same size and seed reuse the same corpus and artifacts. */
  seed: number;
  /** Working directory: corpus, artifact set, logs, results. */
  out: string;
  /** "direct": build from generator JSONL; "pipeline": crawl and fetch through the stand-in with `npm run pipeline -- run`; "auto": pipeline when it exists. */
  source: "auto" | "direct" | "pipeline";
  /** Use the artifact set in `out` as it is; fail when there is none. */
  skipPipeline: boolean;
  /** Phases to run, in their fixed order. */
  phases: Phase[];
  /** Queries in the fixed search set (at least 200 for a reportable run). */
  queries: number;
  /** Known items sampled for recall@10. */
  knownItems: number;
  /** Seconds of mixed load before the second RSS sample. */
  soakSeconds: number;
  /** Seconds per autocannon run. */
  servingSeconds: number;
  /** autocannon connections. */
  servingConnections: number;
  /** Seconds of the `workers` phase's timed run per server. */
  workersSeconds: number;
  /** Seconds of load before the `workers` phase's timed run per server, reported apart (workers.ts). */
  workersWarmupSeconds: number;
  /** Rounds of the `workers` phase (WORKERS=1 and 2 alternated). */
  workersRounds: number;
  /** The `workers` phase's load generator: wrk where it is installed (auto), or the one named. */
  workersClient: "auto" | "wrk" | "autocannon";
  /** Transcripts the FlexSearch peer indexes at most (it holds them in memory). */
  flexMaxDocs: number;
  /** Wall-clock budget in seconds for each peer's pass over the queries; queries past it are not run. */
  peerBudgetSeconds: number;
  /** Markdown file the results are written to; "" for none. */
  report: string;
  /** Corpus generator processes; on the pipeline path, the stand-in's worker processes. */
  jobs: number;
  /** Progress lines to stderr. */
  quiet: boolean;
  /** Print and write the report of the last run in `out` without measuring. */
  reportOnly: boolean;
  /** Drop the database file from the page cache before the server's first start (page-cache.ts). */
  dropCache: boolean;
  /** Another checkout of this repository whose server the `compare` phase runs beside this one's. */
  compareTree: string | undefined;
  /** How many times the compare phase alternates the two servers. */
  compareRounds: number;
  /** Redis the `redis` phase's server counts its rate limit in. */
  redisUrl: string;
  /** PostgreSQL database the `pg-peer` phase connects to to create (and drop) its scratch database. */
  pgUrl: string;
  /** Most transcripts the `pg-peer` phase loads into PostgreSQL (most viewed first); undefined for all. */
  pgMaxDocs: number | undefined;
  /** The `ingest-limits` phase: exit proxies, each one client address of the limited stand-in. */
  limitsExits: number;
  /** The semantic phase's vector-search part: chunks written; undefined: the chunk count of 500,000 transcripts. */
  semanticChunks: number | undefined;
  /** The semantic phase: most seconds of exact searches for its recall check. */
  semanticExactSeconds: number;
  /** Requests the limited stand-in allows each address per `limitsWindowMs`. */
  limitsBudget: number;
  limitsWindowMs: number;
  /** Worker processes beside the run, one measured run per entry. */
  limitsWorkers: number[];
}

interface OptionSpec {
  name: string;
  default: string;
  help: string;
}

export const OPTION_TABLE: readonly OptionSpec[] = [
  { name: "size", default: "500000", help: "Videos in the synthetic corpus." },
  { name: "seed", default: "1", help: "Corpus seed." },
  { name: "out", default: ".bench/<size>-pipeline, or .bench/<size> with --direct", help: "Working directory (corpus, artifacts, logs, results.json)." },
  { name: "direct", default: "off", help: "Build straight from the generator's JSONL instead of crawling and fetching through the stand-in with `npm run pipeline -- run`." },
  { name: "pipeline", default: "on", help: "The full path (the default): stand-in + `npm run pipeline -- run`." },
  { name: "skip-pipeline", default: "off", help: "Use the artifact set already in --out." },
  { name: "drop-cache", default: "off", help: "Drop the database file from the operating system's page cache (GNU dd iflag=nocache) before the server's first start." },
  { name: "phases", default: DEFAULT_PHASES.join(","), help: `Comma-separated phases to run, out of ${PHASES.join(", ")}; opt-in: ${OPT_IN.join(", ")} (scripts/bench/README.md says what each measures).` },
  { name: "queries", default: "240", help: "Queries in the fixed search set." },
  { name: "known-items", default: "500", help: "Transcripts sampled for known-item recall@10." },
  { name: "soak-seconds", default: "600", help: "Seconds of mixed load between the two RSS samples." },
  { name: "serving-seconds", default: "10", help: "Seconds per autocannon run." },
  { name: "workers-seconds", default: "20", help: "Seconds of the workers phase's throughput run per server." },
  { name: "workers-warmup-seconds", default: "10", help: "Seconds of the same load before each throughput run of the workers phase, reported apart: the first seconds after a start are the engine optimizing the code that answers a request (0: none)." },
  { name: "workers-rounds", default: "3", help: "Rounds of the workers phase, WORKERS=1 and 2 alternated; its figures are the medians over the rounds." },
  { name: "workers-client", default: "auto", help: "Load generator of the workers phase's timed runs: wrk (Debian's package), autocannon, or auto (wrk where installed)." },
  { name: "connections", default: "64", help: "autocannon connections." },
  { name: "flex-max-docs", default: "20000", help: "Most transcripts the in-memory FlexSearch peer indexes." },
  { name: "peer-budget", default: "600", help: "Seconds each peer may spend on the query set." },
  { name: "redis-url", default: "redis://127.0.0.1:6379", help: "Redis for the redis phase (the server's REDIS_URL, keys under a prefix of the bench's own); the phase is skipped when it does not answer." },
  { name: "pg-url", default: "postgres://postgres@127.0.0.1:5432/postgres", help: "PostgreSQL the pg-peer phase creates its scratch database on (and drops it at the end); skipped when it does not answer." },
  { name: "pg-max-docs", default: "all", help: "Most transcripts the pg-peer phase loads into PostgreSQL, most viewed first." },
  { name: "semantic-chunks", default: "scale", help: "Chunks of stand-in vectors the semantic phase searches: scale (the chunk count of 500,000 transcripts of the seeded corpus) or a number, for a smaller run." },
  { name: "semantic-exact-seconds", default: "120", help: "Most seconds the semantic phase spends on exact searches (at least 5) for the recall of the approximate one." },
  { name: "limits-exits", default: "8", help: "The ingest-limits phase's exits: loopback proxies, each leaving from its own 127.0.0.x address, split among the run and its workers." },
  { name: "limits-budget", default: "100", help: "Requests the ingest-limits phase's stand-in allows each exit per --limits-window-ms (then a 429 with a 10 s Retry-After); each process paces its exits at 95% of it (YOUTUBE_EXIT_RATE)." },
  { name: "limits-window-ms", default: "10000", help: "The ingest-limits phase's window, in ms." },
  { name: "limits-workers", default: "1,3", help: "Comma-separated: `npm run pipeline -- worker` processes beside the run, one measured run each, on a fresh PostgreSQL database (--pg-url's server)." },
  { name: "report", default: "BENCHMARKS.md", help: "Markdown file to update (\"\" for none)." },
  { name: "jobs", default: "<cores>", help: "Corpus generator processes; on the pipeline path, the stand-in's worker processes." },
  { name: "quiet", default: "off", help: "No progress lines." },
  { name: "compare-tree", default: "none", help: "Another checkout (e.g. a git worktree of an earlier commit): the compare phase runs its server and this one's, alternated (--compare-rounds, 2) on the same set and queries." },
  { name: "compare-rounds", default: "2", help: "How many times the compare phase alternates the two servers." },
  { name: "report-only", default: "off", help: "Print and write the report of the last run in --out (results.json), measuring nothing." },
];

export class BenchUsageError extends Error {
  override name = "BenchUsageError";
}

function integer(raw: string | undefined, fallback: number, name: string, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min) {
    throw new BenchUsageError(`Expected the "--${name}" option to be an integer of at least ${min}`);
  }
  return value;
}

/** One of `values` (the first when the option is not given). */
function oneOf<T extends string>(raw: string | undefined, values: readonly T[], name: string): T {
  if (raw === undefined) return values[0]!;
  if (!(values as readonly string[]).includes(raw)) throw new BenchUsageError(`Expected the "--${name}" option to be one of ${values.join(", ")}`);
  return raw as T;
}

function url(raw: string | undefined, fallback: string, name: string, protocols: readonly string[]): string {
  const value = raw ?? fallback;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !protocols.includes(parsed.protocol)) {
    throw new BenchUsageError(`Expected the "--${name}" option to be a ${protocols.map((p) => `${p}//`).join(" or ")} URL`);
  }
  return value;
}

/** `--limits-workers`: comma-separated counts of worker processes, each at least 1. */
function workerCounts(raw: string | undefined): number[] {
  if (raw === undefined) return [1, 3];
  const counts = raw.split(",").map((part) => part.trim());
  if (counts.length === 0 || counts.some((part) => !/^\d+$/.test(part) || Number(part) < 1 || Number(part) > 64)) {
    throw new BenchUsageError('Expected the "--limits-workers" option to list worker counts from 1 to 64, separated by commas');
  }
  return counts.map(Number);
}

export function usage(): string {
  const rows = OPTION_TABLE.map((o) => `  --${o.name.padEnd(16)} ${o.help} (default ${o.default})`);
  return `usage: npm run bench -- [options]\n${rows.join("\n")}`;
}

export function parseBenchArgs(argv: string[], cores: number): BenchOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        size: { type: "string" },
        seed: { type: "string" },
        out: { type: "string" },
        direct: { type: "boolean" },
        pipeline: { type: "boolean" },
        "skip-pipeline": { type: "boolean" },
        "drop-cache": { type: "boolean" },
        phases: { type: "string" },
        queries: { type: "string" },
        "known-items": { type: "string" },
        "soak-seconds": { type: "string" },
        "serving-seconds": { type: "string" },
        "workers-seconds": { type: "string" },
        "workers-warmup-seconds": { type: "string" },
        "workers-rounds": { type: "string" },
        "workers-client": { type: "string" },
        connections: { type: "string" },
        "flex-max-docs": { type: "string" },
        "peer-budget": { type: "string" },
        report: { type: "string" },
        jobs: { type: "string" },
        quiet: { type: "boolean" },
        "report-only": { type: "boolean" },
        "compare-tree": { type: "string" },
        "compare-rounds": { type: "string" },
        "redis-url": { type: "string" },
        "pg-url": { type: "string" },
        "pg-max-docs": { type: "string" },
        "limits-exits": { type: "string" },
        "semantic-chunks": { type: "string" },
        "semantic-exact-seconds": { type: "string" },
        "limits-budget": { type: "string" },
        "limits-window-ms": { type: "string" },
        "limits-workers": { type: "string" },
      },
    }));
  } catch (error) {
    throw new BenchUsageError(`${error instanceof Error ? error.message : String(error)}\n${usage()}`);
  }
  if ((values.phases ?? "").split(",").map((p) => p.trim()).includes("compare") && values["compare-tree"] === undefined) {
    throw new BenchUsageError('The "compare" phase needs "--compare-tree DIR"');
  }
  if (values.direct && values.pipeline) throw new BenchUsageError('The "--direct" and "--pipeline" options exclude each other');
  const size = integer(values.size, 500_000, "size", 10);
  const phases = (values.phases ?? DEFAULT_PHASES.join(",")).split(",").map((p) => p.trim()).filter(Boolean);
  const limitsExits = integer(values["limits-exits"], 8, "limits-exits", 2);
  const limitsWorkers = workerCounts(values["limits-workers"]);
  if (Math.max(...limitsWorkers) + 1 > limitsExits) {
    throw new BenchUsageError('Expected "--limits-exits" to give the run and every worker of "--limits-workers" an exit of its own');
  }
  for (const phase of phases) {
    if (!(PHASES as readonly string[]).includes(phase)) {
      throw new BenchUsageError(`Expected "--phases" to list phases out of: ${PHASES.join(", ")}`);
    }
  }
  return {
    size,
    seed: integer(values.seed, 1, "seed", 0),
    // The two paths build different sets (the pipeline's has its state database and live store), so they live apart.
    out: values.out ?? (values.direct ? `.bench/${size}` : `.bench/${size}-pipeline`),
    source: values.direct ? "direct" : values.pipeline ? "pipeline" : "auto",
    skipPipeline: values["skip-pipeline"] ?? false,
    phases: PHASES.filter((p) => phases.includes(p)),
    queries: integer(values.queries, 240, "queries", 1),
    knownItems: integer(values["known-items"], 500, "known-items", 1),
    soakSeconds: integer(values["soak-seconds"], 600, "soak-seconds", 1),
    servingSeconds: integer(values["serving-seconds"], 10, "serving-seconds", 1),
    workersSeconds: integer(values["workers-seconds"], 20, "workers-seconds", 1),
    workersWarmupSeconds: integer(values["workers-warmup-seconds"], 10, "workers-warmup-seconds", 0),
    workersRounds: integer(values["workers-rounds"], 3, "workers-rounds", 1),
    workersClient: oneOf(values["workers-client"], ["auto", "wrk", "autocannon"] as const, "workers-client"),
    servingConnections: integer(values.connections, 64, "connections", 1),
    flexMaxDocs: integer(values["flex-max-docs"], 20_000, "flex-max-docs", 1),
    peerBudgetSeconds: integer(values["peer-budget"], 600, "peer-budget", 1),
    report: values.report ?? "BENCHMARKS.md",
    jobs: integer(values.jobs, Math.max(1, cores), "jobs", 1),
    quiet: values.quiet ?? false,
    reportOnly: values["report-only"] ?? false,
    dropCache: values["drop-cache"] ?? false,
    compareTree: values["compare-tree"],
    compareRounds: integer(values["compare-rounds"], 2, "compare-rounds", 1),
    redisUrl: url(values["redis-url"], "redis://127.0.0.1:6379", "redis-url", ["redis:", "rediss:"]),
    pgUrl: url(values["pg-url"], "postgres://postgres@127.0.0.1:5432/postgres", "pg-url", ["postgres:", "postgresql:"]),
    pgMaxDocs: values["pg-max-docs"] === undefined || values["pg-max-docs"] === "all" ? undefined : integer(values["pg-max-docs"], 0, "pg-max-docs", 1),
    limitsExits,
    semanticChunks: values["semantic-chunks"] === undefined || values["semantic-chunks"] === "scale" ? undefined : integer(values["semantic-chunks"], 0, "semantic-chunks", 100),
    semanticExactSeconds: integer(values["semantic-exact-seconds"], 120, "semantic-exact-seconds", 1),
    limitsBudget: integer(values["limits-budget"], 100, "limits-budget", 1),
    limitsWindowMs: integer(values["limits-window-ms"], 10_000, "limits-window-ms", 100),
    limitsWorkers,
  };
}
