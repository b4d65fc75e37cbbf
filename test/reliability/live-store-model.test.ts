/**
 * The promise of the live store, checked against a model: random sequences of
 * live fetches, pipeline publishes, `build` (no input, an empty input, partial, new
 * records), builds interrupted at random points, server stops and restarts.
 * After every step, every transcript ever answered as stored is served
 * `cached: true` and counted by /v1/stats, and no stored video was fetched
 * from YouTube twice. A second part does the same with real processes and
 * `kill -9` at random moments of the server and of the pipeline.
 *
 * LIVE_MODEL_RUNS and LIVE_MODEL_KILL_RUNS set the number of sequences (the
 * soak runs more).
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuildInterrupted } from "../../pipeline/command/interrupt.js";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { buildAndPublish } from "../../pipeline/build/build-and-publish.js";
import { importAndPublish, inputOf, NothingToImportError } from "../../pipeline/import/import-and-publish.js";
import { PipelineState } from "../../pipeline/state/open-state.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { artifactRecords, fresh, STORED, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "../live/helpers/live-server.js";
import { seeded, startChild, TEST_SERVER_ENV, until, type Child } from "./helpers/child.js";

const MODEL_RUNS = Number(process.env.LIVE_MODEL_RUNS ?? 200);
const KILL_RUNS = Number(process.env.LIVE_MODEL_KILL_RUNS ?? 3);

/** Videos only YouTube has: fetched live by the sequences. */
const LIVE_IDS = Array.from({ length: 8 }, (_, i) => fresh(i).videoId);
/** Videos a `build --input` brings in (never fetched live). */
const IMPORTED = Array.from({ length: 4 }, (_, i) => fresh(20 + i));

let standin: Standin;
/** A DATA_DIR whose set the pipeline built from its state; each sequence starts from a copy. */
let template: string;
let baseTranscripts: number;

beforeAll(async () => {
  standin = await startStandin({ corpus: upstreamCorpus() });
  template = mkdtempSync(join(tmpdir(), "model-template-"));
  const state = PipelineState.open(join(template, "pipeline", "state.db"));
  try {
    const { built } = await importAndPublish({ dataDir: template, state, log: () => {}, input: inputOf(artifactRecords()) });
    baseTranscripts = built!.counts.transcripts;
  } finally {
    state.close();
  }
});
afterAll(async () => {
  await standin?.close();
  rmSync(template, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------
// In-process: the server as `npm start` wires it, the pipeline's own functions.
// ---------------------------------------------------------------------------

interface Model {
  /** Every video answered as stored so far, with its upstream player calls at that moment: they never grow after it. */
  stored: Map<string, number>;
  /** Videos whose fetch was killed before its answer came: each may have been stored, or not. */
  maybe: Set<string>;
}

const playerCalls = (id: string): number => standin.stats.byVideo[id]?.player ?? 0;

function newModel(): Model {
  return { stored: new Map([[STORED.videoId, 0]]), maybe: new Set() };
}

interface Real {
  dataDir: string;
  server: LiveServer | undefined;
}

async function up(real: Real): Promise<LiveServer> {
  // A generous upstream limit: the sequences are about storage, not a slow machine's timeouts. No text
  // read-ahead threads: hundreds of starts in this one process would start and end four each, for a
  // speed this test does not measure (test/search/text-prefetch.test.ts covers them).
  real.server ??= await startLiveServer({
    dataDir: real.dataDir,
    standin,
    runtime: { watch: false, pollMs: 0 },
    env: { YOUTUBE_TIMEOUT_MS: "30000", SEARCH_MEMORY_HELPERS: "-prefetch" },
  });
  return real.server;
}

async function down(real: Real): Promise<void> {
  await real.server?.close();
  real.server = undefined;
}

async function getJson(server: LiveServer, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { "X-API-Key": server.key } });
  return { status: res.status, body: await res.json() };
}

/** The invariant, through the API of a running server. */
async function checkInvariant(model: Model, server: LiveServer | { baseUrl: string; key: string }): Promise<void> {
  for (const id of model.stored.keys()) {
    const { status, body } = await getJson(server as LiveServer, `/v1/transcript/${id}`);
    expect({ id, status, cached: body.cached }).toEqual({ id, status: 200, cached: true });
  }
  const stats = await getJson(server as LiveServer, "/v1/stats");
  // Every stored transcript is counted, plus those of fetches killed after their commit but before their answer.
  const unanswered = [...model.maybe].filter((id) => !model.stored.has(id)).length;
  expect(stats.body.transcripts).toBeGreaterThanOrEqual(baseTranscripts + model.stored.size - 1);
  expect(stats.body.transcripts).toBeLessThanOrEqual(baseTranscripts + model.stored.size - 1 + unanswered);
  for (const [id, calls] of model.stored) expect({ id, player: playerCalls(id) }).toEqual({ id, player: calls });
}

/** The pipeline's build stage (after its crawl and fetch): fold the live store into the state, build, publish. */
async function publish(real: Real, input: VideoRecord[] | undefined, signal?: AbortSignal): Promise<boolean> {
  const state = PipelineState.open(join(real.dataDir, "pipeline", "state.db"));
  try {
    const options = { dataDir: real.dataDir, state, log: () => {}, ...(signal ? { signal } : {}) };
    if (input) await importAndPublish({ ...options, input: inputOf(input) });
    else await buildAndPublish(options);
    return true;
  } catch (error) {
    if (error instanceof BuildInterrupted) return false;
    throw error;
  } finally {
    state.close();
  }
}

async function switchIfUp(real: Real): Promise<void> {
  if (real.server) expect(["switched", "unchanged"]).toContain(await real.server.runtime.reload("sighup", true));
}

type Command = fc.AsyncCommand<Model, Real>;

class Fetch implements Command {
  constructor(readonly id: string) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const server = await up(real);
    const { status, body } = await getJson(server, `/v1/transcript/${this.id}`);
    expect(status).toBe(200);
    expect(body.cached).toBe(model.stored.has(this.id));
    if (!model.stored.has(this.id)) model.stored.set(this.id, 1);
    await checkInvariant(model, server);
  }
  toString = () => `fetch(${this.id})`;
}

class Publish implements Command {
  constructor(readonly input: "none" | "empty" | "partial" | number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const records = this.input === "none" ? undefined : this.input === "empty" ? [] : this.input === "partial" ? [STORED] : [IMPORTED[this.input]!];
    // An input without a valid record is refused and publishes nothing.
    if (this.input === "empty") await expect(publish(real, records)).rejects.toThrow(NothingToImportError);
    else expect(await publish(real, records)).toBe(true);
    if (typeof this.input === "number") model.stored.set(IMPORTED[this.input]!.videoId, 0);
    await switchIfUp(real);
    if (real.server) await checkInvariant(model, real.server);
  }
  toString = () => (this.input === "none" ? "publish" : `build --input ${typeof this.input === "number" ? `new(${this.input})` : this.input}`);
}

class InterruptedPublish implements Command {
  constructor(readonly afterMs: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await publish(real, undefined, AbortSignal.timeout(this.afterMs));
    await switchIfUp(real);
    if (real.server) await checkInvariant(model, real.server);
  }
  toString = () => `publish interrupted after ${this.afterMs} ms`;
}

class Restart implements Command {
  constructor(readonly stayDown: boolean) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await down(real);
    if (this.stayDown) return;
    await checkInvariant(model, await up(real));
  }
  toString = () => (this.stayDown ? "stop" : "restart");
}

const commands = [
  fc.constantFrom(...LIVE_IDS).map((id) => new Fetch(id)),
  fc.constantFrom(...LIVE_IDS).map((id) => new Fetch(id)),
  fc.constantFrom<"none" | "empty" | "partial">("none", "none", "empty", "partial").map((input) => new Publish(input)),
  fc.integer({ min: 0, max: IMPORTED.length - 1 }).map((i) => new Publish(i)),
  fc.integer({ min: 0, max: 400 }).map((ms) => new InterruptedPublish(ms)),
  fc.boolean().map((stayDown) => new Restart(stayDown)),
];

describe("the live store against its model", () => {
  it(`keeps every transcript answered as stored, over ${MODEL_RUNS} random sequences of fetches, publishes, imports, interrupted builds and restarts`, async () => {
    let sequences = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 8 }), async (cmds) => {
        standin.stats.reset();
        const dataDir = mkdtempSync(join(tmpdir(), "model-"));
        cpSync(template, dataDir, { recursive: true, verbatimSymlinks: true });
        const real: Real = { dataDir, server: undefined };
        const model = newModel();
        try {
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Whatever the sequence left, a server started now serves it all.
          await checkInvariant(model, await up(real));
          sequences++;
        } finally {
          await down(real);
          rmSync(dataDir, { recursive: true, force: true });
        }
      }),
      { numRuns: MODEL_RUNS },
    );
    console.log(`live-store model: ${sequences} sequences`);
    expect(sequences).toBeGreaterThanOrEqual(MODEL_RUNS);
  }, 1_200_000);
});

// ---------------------------------------------------------------------------
// Real processes: `kill -9` of the server and of the pipeline at random moments.
// ---------------------------------------------------------------------------

interface ServerProcess {
  child: Child;
  baseUrl: string;
  key: string;
}

async function startServerProcess(dataDir: string, key: string): Promise<ServerProcess> {
  const child = startChild("server/main.ts", [], {
    DATA_DIR: dataDir,
    PORT: "0",
    LOG_LEVEL: "info",
    ACCESS_LOG: "off",
    RATE_LIMIT_PER_MINUTE: "1000000",
    YOUTUBE_ORIGIN: standin.origin,
    YOUTUBE_TIMEOUT_MS: "30000",
    ...TEST_SERVER_ENV,
  });
  await until(() => /"msg":"listening"/.test(child.stdout()) || child.process.exitCode !== null, 120_000, "the server to listen");
  const url = /"url":"(http:\/\/[^"]+)"/.exec(child.stdout())?.[1];
  if (!url) throw new Error(`the server did not start: ${child.stderr()}`);
  return { child, baseUrl: url, key };
}

async function kill(child: Child, signal: NodeJS.Signals): Promise<void> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill(signal);
  await child.exited;
}

describe("the live store under kill -9", () => {
  it(`keeps every transcript answered as stored when the server and the pipeline are killed at random moments (${KILL_RUNS} sequences)`, async () => {
    for (let run = 0; run < KILL_RUNS; run++) {
      const seed = (Date.now() + run * 7919) >>> 0;
      const random = seeded(seed);
      const steps: string[] = [];
      standin.stats.reset();
      const dataDir = mkdtempSync(join(tmpdir(), "model-kill-"));
      cpSync(template, dataDir, { recursive: true, verbatimSymlinks: true });
      const keyStore = openKeyStore({ dataDir });
      const key = keyStore.create({ plan: "pro", name: "model" }).key;
      keyStore.close();
      const model = newModel();
      let server: ServerProcess | undefined;
      try {
        for (let step = 0; step < 6; step++) {
          server ??= await startServerProcess(dataDir, key);
          const choice = random();
          if (choice < 0.4) {
            // A live fetch, its answer awaited or the server killed while it is in flight.
            const id = LIVE_IDS[Math.floor(random() * LIVE_IDS.length)]!;
            const killAfter = random() < 0.5 ? Math.floor(random() * 60) : undefined;
            steps.push(`fetch ${id}${killAfter === undefined ? "" : ` (server kill -9 after ${killAfter} ms)`}`);
            const answer = getJson(server as unknown as LiveServer, `/v1/transcript/${id}`).then(
              (r) => r,
              () => undefined,
            );
            if (killAfter !== undefined) {
              await new Promise((resolve) => setTimeout(resolve, killAfter));
              await kill(server.child, "SIGKILL");
              server = undefined;
            }
            const got = await answer;
            if (got?.status === 200) {
              // Answered as stored whenever the model has it; a fetch killed before its answer may have stored it too.
              if (model.stored.has(id)) expect(got.body.cached, steps.join("; ")).toBe(true);
              else model.stored.set(id, playerCalls(id));
            } else if (killAfter !== undefined) model.maybe.add(id);
          } else if (choice < 0.75) {
            // The pipeline's build stage as a process, killed at a random moment or left to finish.
            const killAfter = random() < 0.6 ? Math.floor(random() * 4000) : undefined;
            steps.push(`build (kill -9 ${killAfter === undefined ? "never" : `after ${killAfter} ms`})`);
            const pipeline = startChild("pipeline/cli.ts", ["build"], { DATA_DIR: dataDir });
            if (killAfter !== undefined) {
              await Promise.race([pipeline.exited, new Promise((resolve) => setTimeout(resolve, killAfter))]);
              await kill(pipeline, "SIGKILL");
            }
            const exit = await pipeline.exited;
            if (exit.signal === null) expect(exit.code, pipeline.stderr()).toBe(0);
          } else {
            const signal: NodeJS.Signals = random() < 0.5 ? "SIGKILL" : "SIGTERM";
            steps.push(`server ${signal}`);
            await kill(server.child, signal);
            server = undefined;
          }
          server ??= await startServerProcess(dataDir, key);
          // The switch to a newly published set happens within the poll interval.
          const published = server;
          await until(async () => (await getJson(published as unknown as LiveServer, "/v1/stats")).body.transcripts >= baseTranscripts + model.stored.size - 1, 10_000, "the server to serve what was stored").catch(() => {});
          try {
            await checkInvariant(model, server);
          } catch (error) {
            throw new Error(`seed ${seed}, steps: ${steps.join("; ")}: ${(error as Error).message}`);
          }
        }
        console.log(`live-store kill -9: seed ${seed}: ${steps.join("; ")}`);
      } finally {
        if (server) await kill(server.child, "SIGKILL");
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }, 1_200_000);
});
