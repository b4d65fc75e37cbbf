/**
 * The `ingest-limits` phase: the synthetic corpus crawled and fetched
 * through the stand-in playing YouTube's limits (a budget per client
 * address per window, a 429 with Retry-After past it), through loopback
 * exit proxies that each leave from their own 127.0.0.x address, by
 * `npm run pipeline -- run` with DATABASE_URL (a fresh database per run)
 * and `npm run pipeline -- worker` processes beside it. The exits are split
 * among the processes as separate hosts would hold them: the run (which
 * crawls, queues and works jobs too) and each worker get their own share.
 * Each process paces its exits a little under the budget, as an operator
 * who knows the budget would set YOUTUBE_EXIT_RATE.
 *
 * What is counted comes from outside the pipeline: the stand-in's record
 * of every request and block per address, the answers it served per video,
 * and the run's state compared with the corpus.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { dataDirLayout } from "../../pipeline/artifact/layout/index.js";
import { createSyntheticCorpus, type SyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { startExitProxies } from "../youtube-standin/exit-proxy.js";
import { startStandin, type Standin } from "../youtube-standin/server.js";
import { loadAverage } from "./machine.js";
import { REPO_ROOT, tsxArgs } from "./paths.js";

export interface IngestLimitsOptions {
  size: number;
  seed: number;
  /** Exit proxies, split among the run and the workers. */
  exits: number;
  /** Requests one client address (exit) may send per window. */
  budget: number;
  windowMs: number;
  /** How long an address that went over stays blocked (the Retry-After it is told). */
  coolDownMs: number;
  /** Worker processes of each run, in order (e.g. 1, then 3). */
  workers: number[];
  /** A database on the PostgreSQL to CREATE (and DROP) each run's fresh database from. */
  adminUrl: string;
  /** Scratch folder: channel list, each run's DATA_DIR. */
  dir: string;
  logsDir: string;
  log: (line: string) => void;
}

/** One fetching process: the run, or a worker. */
export interface IngestHost {
  name: string;
  exits: number;
  /** Jobs it works at once. */
  concurrency: number;
}

export interface IngestLimitsRun {
  workers: number;
  hosts: IngestHost[];
  /** Exit status of `npm run pipeline -- run` (0, or 4 with failures a later run retries). */
  exitCode: number;
  /** Wall time of the run process, s. */
  runSeconds: number;
  /** First to last request the stand-in received, s: the time the exits were in use. */
  spanSeconds: number;
  /** 1-minute load average when the run started. */
  load: number;
  requests: {
    /** Every request received from the exits. */
    total: number;
    /** Answered with a block. */
    blocked: number;
    /** Sent to an exit while a Retry-After it had been given was running. */
    duringCoolDown: number;
    /** Requests from an address that is none of the exits (the direct route): should be none. */
    notThroughExits: number;
  };
  /** Per exit (its source address): requests, blocks, and its requests per second from its first request to its last. */
  perExit: { address: string; requests: number; blocked: number; perSecond: number }[];
  videos: {
    corpus: number;
    /** Corpus videos with at least one transcript: the ones to store. */
    withTranscript: number;
    /** In the run's state with their record. */
    stored: number;
    /** Recorded as permanent failures (no transcript, …). */
    permanent: number;
    /** Recorded as permanent although the corpus has a transcript for them. */
    wronglyPermanent: number;
    /** Corpus videos neither stored nor recorded as permanent at the end. */
    lost: number;
    /** Videos whose last step (the caption body, or the player answer of a video without captions) was served more than once. */
    fetchedTwice: number;
    /** Videos whose player answer was served more than once (fetched again after a block later in the fetch). */
    playerAgain: number;
  };
}

export interface IngestLimitsFigures {
  size: number;
  exits: number;
  budget: number;
  windowMs: number;
  coolDownMs: number;
  /** YOUTUBE_EXIT_RATE and YOUTUBE_EXIT_IN_FLIGHT given to every process. */
  exitRatePerMinute: number;
  exitInFlight: number;
  runs: IngestLimitsRun[];
}

/** Share of the budget each exit is paced at: a little under it, so the evenly spaced requests stay inside any window. */
export const PACE_SHARE = 0.95;
/** Jobs each process works at once, per exit it holds: enough to keep every exit at its pace while a job waits on its three requests. */
const JOBS_PER_EXIT = 4;
/** Requests in flight per exit: a few, so a slow answer does not hold the next paced request back. */
const IN_FLIGHT = 4;

/** YOUTUBE_EXIT_RATE for a budget: requests per minute, a little under `budget` per `windowMs`. */
export function exitRateFor(budget: number, windowMs: number): number {
  return Math.max(1, Math.floor((PACE_SHARE * budget * 60_000) / windowMs));
}

/** The exits split among the run and `workers` workers, as many as can be to each, the run first. */
export function splitExits(exits: number, workers: number): IngestHost[] {
  const hosts = workers + 1;
  if (exits < hosts) throw new Error(`${exits} exits cannot be split among the run and ${workers} workers`);
  return Array.from({ length: hosts }, (_, i) => {
    const share = Math.floor(exits / hosts) + (i < exits % hosts ? 1 : 0);
    return { name: i === 0 ? "run" : `worker ${i}`, exits: share, concurrency: JOBS_PER_EXIT * share };
  });
}

export async function measureIngestLimits(options: IngestLimitsOptions): Promise<IngestLimitsFigures> {
  const corpus = createSyntheticCorpus({ seed: options.seed, videos: options.size });
  mkdirSync(options.dir, { recursive: true });
  const channelsFile = join(options.dir, "channels.txt");
  writeFileSync(channelsFile, corpus.channels.map((c) => c.channelId).join("\n") + "\n");
  const withTranscript = new Set<string>();
  for (let i = 0; i < corpus.videoCount; i++) {
    const id = corpus.videoIdAt(i);
    if ((corpus.videoMetadata(id)?.transcripts.length ?? 0) > 0) withTranscript.add(id);
  }
  const figures: IngestLimitsFigures = {
    size: options.size,
    exits: options.exits,
    budget: options.budget,
    windowMs: options.windowMs,
    coolDownMs: options.coolDownMs,
    exitRatePerMinute: exitRateFor(options.budget, options.windowMs),
    exitInFlight: IN_FLIGHT,
    runs: [],
  };
  for (const workers of options.workers) {
    options.log(`ingest-limits: ${options.size} videos, ${options.exits} exits of ${options.budget} requests per ${options.windowMs} ms, the run and ${workers} worker(s)`);
    const run = await oneRun({ ...options, corpus, channelsFile, withTranscript, figures, workers });
    figures.runs.push(run);
    options.log(
      `ingest-limits, ${workers} worker(s): ${run.requests.total} requests in ${run.spanSeconds.toFixed(1)} s, ${run.requests.blocked} blocked, ` +
        `${run.requests.duringCoolDown} during a cool-down; ${run.videos.stored} stored, ${run.videos.permanent} permanent, ${run.videos.lost} lost, ${run.videos.fetchedTwice} fetched twice`,
    );
  }
  return figures;
}

interface RunContext extends Omit<IngestLimitsOptions, "workers"> {
  corpus: SyntheticCorpus;
  channelsFile: string;
  withTranscript: Set<string>;
  figures: IngestLimitsFigures;
  workers: number;
}

async function oneRun(ctx: RunContext): Promise<IngestLimitsRun> {
  const hosts = splitExits(ctx.exits, ctx.workers);
  const load = loadAverage();
  const standin = await startStandin({ corpus: ctx.corpus, limits: { budget: ctx.budget, windowMs: ctx.windowMs, coolDownMs: ctx.coolDownMs, answer: "rate-limit" } });
  const proxies = await startExitProxies(ctx.exits);
  const database = await freshDatabase(ctx.adminUrl, `bench_ingest_${process.pid}_${ctx.workers}_${Date.now().toString(36)}`);
  const dataDir = join(ctx.dir, `data-${ctx.workers}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  /** The proxies of host `i`: its own run of them, after the earlier hosts'. */
  const share = (i: number) => {
    const first = hosts.slice(0, i).reduce((sum, host) => sum + host.exits, 0);
    return proxies.slice(first, first + hosts[i]!.exits).map((p) => p.url);
  };
  const env = (proxyUrls: string[], extra: Record<string, string>): NodeJS.ProcessEnv => {
    const base: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ["DATABASE_URL", "REDIS_URL", "YOUTUBE_PROXY_URLS", "DATA_DIR"]) delete base[name];
    return {
      ...base,
      DATABASE_URL: database.url,
      YOUTUBE_ORIGIN: standin.origin,
      YOUTUBE_PROXY_URLS: proxyUrls.join(","),
      YOUTUBE_EXIT_RATE: String(ctx.figures.exitRatePerMinute),
      YOUTUBE_EXIT_IN_FLIGHT: String(ctx.figures.exitInFlight),
      ...extra,
    };
  };
  const children: Child[] = [];
  try {
    // The workers are up first, as services on other hosts would be when a run starts; the first makes the
    // queue's schema alone, then the others start.
    for (let i = 1; i < hosts.length; i++) {
      const logPath = join(ctx.logsDir, `ingest-limits-${ctx.workers}-worker-${i}.log`);
      const worker = startChild(hosts[i]!.name, tsxArgs("pipeline/cli.ts", ["worker", "--concurrency", String(hosts[i]!.concurrency)]), env(share(i), {}), logPath);
      children.push(worker);
      if (i === 1) await waitForQueue(database.url, worker);
    }
    await Promise.all(children.map((worker, i) => waitForLine(join(ctx.logsDir, `ingest-limits-${ctx.workers}-worker-${i + 1}.log`), "working fetch jobs", worker)));
    const started = performance.now();
    const run = startChild(
      "run",
      tsxArgs("pipeline/cli.ts", ["run", "--channels", ctx.channelsFile, "--no-build", "--recrawl-after", "0", "--concurrency", String(hosts[0]!.concurrency)]),
      env(share(0), { DATA_DIR: dataDir }),
      join(ctx.logsDir, `ingest-limits-${ctx.workers}-run.log`),
    );
    children.push(run);
    const exitCode = await run.exited;
    const runSeconds = (performance.now() - started) / 1000;
    // The queue is drained once the run ends: a worker's first SIGTERM lets it stop taking jobs and exit.
    const workers = children.filter((child) => child !== run);
    for (const worker of workers) worker.child.kill("SIGTERM");
    await Promise.all(workers.map((worker) => worker.exited));
    return {
      workers: ctx.workers,
      hosts,
      exitCode,
      runSeconds,
      load,
      ...standinFigures(standin, proxies.map((p) => p.localAddress)),
      videos: videoFigures(ctx, standin, dataDirLayout(dataDir).state),
    };
  } finally {
    for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.all(proxies.map((p) => p.close()));
    await standin.close();
    await database.drop();
  }
}

/** Requests and their span, from the stand-in's record per address. */
function standinFigures(standin: Standin, exitAddresses: string[]): Pick<IngestLimitsRun, "requests" | "spanSeconds" | "perExit"> {
  const report = standin.limitsReport();
  let earliest = Infinity;
  let latest = -Infinity;
  const perExit: IngestLimitsRun["perExit"] = [];
  for (const [address, counts] of Object.entries(report.addresses)) {
    const times = standin.limitsRecord(address)?.requests ?? [];
    if (times.length === 0) continue;
    earliest = Math.min(earliest, times[0]!);
    latest = Math.max(latest, times.at(-1)!);
    const seconds = (times.at(-1)! - times[0]!) / 1000;
    perExit.push({ address, requests: counts.requests, blocked: counts.blocked, perSecond: seconds > 0 ? Math.round(((times.length - 1) / seconds) * 100) / 100 : 0 });
  }
  const notThroughExits = Object.entries(report.addresses)
    .filter(([address]) => !exitAddresses.includes(address))
    .reduce((sum, [, a]) => sum + a.requests, 0);
  return {
    perExit,
    spanSeconds: Number.isFinite(earliest) ? (latest - earliest) / 1000 : 0,
    requests: { total: report.totals.requests, blocked: report.totals.blocked, duringCoolDown: report.totals.duringAnnouncedCoolDown, notThroughExits },
  };
}

/** The run's state and the answers served per video, against the corpus. */
function videoFigures(ctx: RunContext, standin: Standin, statePath: string): IngestLimitsRun["videos"] {
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  let rows: { video_id: string; status: string }[];
  try {
    rows = db.prepare("SELECT video_id, status FROM videos").all() as { video_id: string; status: string }[];
  } finally {
    db.close();
  }
  const status = new Map(rows.map((row) => [row.video_id, row.status]));
  const served = standin.stats.servedByVideo;
  const videos = { corpus: ctx.corpus.videoCount, withTranscript: ctx.withTranscript.size, stored: 0, permanent: 0, wronglyPermanent: 0, lost: 0, fetchedTwice: 0, playerAgain: 0 };
  for (let i = 0; i < ctx.corpus.videoCount; i++) {
    const id = ctx.corpus.videoIdAt(i);
    const has = ctx.withTranscript.has(id);
    const state = status.get(id);
    if (state === "fetched") videos.stored++;
    else if (state === "failed") {
      videos.permanent++;
      if (has) videos.wronglyPermanent++;
    } else videos.lost++;
    const counts = served[id];
    if (counts && (has ? counts.timedtext : counts.player) > 1) videos.fetchedTwice++;
    if (counts && counts.player > 1) videos.playerAgain++;
  }
  return videos;
}

interface Child {
  child: ReturnType<typeof spawn>;
  /** Its exit code (a signal counts as 1). */
  exited: Promise<number>;
}

function startChild(name: string, args: string[], env: NodeJS.ProcessEnv, logPath: string): Child {
  const fd = openSync(logPath, "w");
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const exited = new Promise<number>((resolve, reject) => {
    child.once("error", (error) => reject(new Error(`${name}: ${error.message}; see ${logPath}`)));
    child.once("exit", (code) => resolve(code ?? 1));
  });
  return { child, exited };
}

/** Resolves once `owner` has made the queue's schema and the results table; rejects if it ends first. */
async function waitForQueue(url: string, owner: Child): Promise<void> {
  let ended = false;
  void owner.exited.then(() => (ended = true), () => (ended = true));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ ready: boolean }>("SELECT to_regclass('fetch_queue.job') IS NOT NULL AND to_regclass('public.fetch_results') IS NOT NULL AS ready");
      if (rows[0]?.ready) return;
      if (ended) throw new Error("a worker ended before it made the fetch queue; see its log");
      await sleep(200);
    }
  } finally {
    await client.end();
  }
}

/** Resolves once the log at `path` holds `line`; rejects if `child` ends first. */
async function waitForLine(path: string, line: string, child: Child): Promise<void> {
  let ended = false;
  void child.exited.then(() => (ended = true), () => (ended = true));
  while (!readFileSync(path, "utf8").includes(line)) {
    if (ended) throw new Error(`a worker ended before it worked jobs; see ${path}`);
    await sleep(100);
  }
}

async function freshDatabase(adminUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = new pg.Client({ connectionString: adminUrl });
      await again.connect();
      try {
        await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await again.end();
      }
    },
  };
}
