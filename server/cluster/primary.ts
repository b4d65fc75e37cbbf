/**
 * `npm start` with WORKERS > 1: the primary process. It binds the port first
 * (a port in use stops the start before anything else), makes sure a set is
 * published (the demo one on first start), then forks the workers, each a
 * whole server (`main.ts`), and answers their questions about the state they
 * share (`hub.ts`). It serves the port once the first worker serves, issuing
 * the demo key then (once, so a start that never serves changes no key), and
 * hands each connection it accepts to the worker with the fewest open
 * (front-door.ts). It logs `listening` once every worker serves, replaces a
 * worker that dies, passes SIGHUP on, and on SIGTERM/SIGINT stops listening,
 * then stops every worker gracefully before it exits.
 */
import cluster, { type Worker } from "node:cluster";
import type net from "node:net";
import { availableParallelism } from "node:os";
import { demoKeyBanner, ensureServableSetOrExit, isDemoSet, issueDemoKey, revokeDemoKeys } from "../start/demo.js";
import { openKeyStore } from "../auth/key-store.js";
import { NO_USABLE_KEY } from "../auth/usable-keys.js";
import type { Config } from "../config.js";
import { errorFields, type Logger } from "../log.js";
import { readManifest } from "../../pipeline/artifact/manifest/index.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/index.js";
import { reservePortOrExit } from "../start/port-reservation.js";
import { startedByNpmScript, whenParentGone } from "../start/parent-watch.js";
import { FrontDoor } from "./front-door.js";
import { Hub, type Asker } from "./hub.js";
import { CHANNEL, isServiceMessage, type PrimaryMessage, type WorkerMessage } from "./messages.js";

/** A worker that dies before it listens this many times in a row stops the service (a crash loop helps nobody). */
const MAX_FAILED_STARTS = 5;
/** Wait before a replacement, so a worker that dies at once does not spin the CPU. */
const RESTART_DELAY_MS = 500;

export async function runPrimary(config: Config, workers: number, log: Logger): Promise<void> {
  const primary = new Primary({ config, workers, log });
  primary.handleSignals();
  // Before anything slow or lasting: a port in use is one line, and nothing has changed yet.
  const reservation = await reservePortOrExit(config.host, config.port);
  await ensureServableSetOrExit(config, log);
  primary.start(reservation);
}

interface PrimaryOptions {
  config: Config;
  workers: number;
  log: Logger;
}

/** The primary's workers: forked, answered, replaced when one dies, and stopped together. */
class Primary {
  readonly #config: Config;
  readonly #workers: number;
  readonly #log: Logger;
  readonly #hub: Hub;
  readonly #listeningWorkers = new Set<number>();
  #door: FrontDoor | undefined;
  #stopping = false;
  #forked = false;
  #stopSignal: NodeJS.Signals | undefined;
  #demoKey: string | undefined;
  #announced = false;
  #failedStarts = 0;

  constructor(options: PrimaryOptions) {
    const { config, log } = options;
    this.#config = config;
    this.#workers = options.workers;
    this.#log = log;
    this.#hub = new Hub({
      rateLimitPerMinute: config.rateLimitPerMinute,
      negativeCacheMs: config.negativeCacheSeconds * 1000,
      negativeCacheSize: config.negativeCacheSize,
      onLateRecall: (holders, timeoutMs) =>
        log.warn("workers did not give back their rate-limit leases in time; what they held counts as used this minute", { workers: holders, timeoutMs }),
    });
  }

  /** SIGTERM, SIGINT and npm gone stop the service; SIGHUP is passed on to every worker. */
  handleSignals(): void {
    const onSignal = (signal: NodeJS.Signals): void => this.#stop(signal);
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    // Under `npm start`, npm gone (killed outright, so it passed no signal on) stops the service as SIGTERM would.
    if (startedByNpmScript(process.env)) {
      whenParentGone(() => {
        this.#log.warn("the npm process that started the server is gone; stopping");
        onSignal("SIGTERM");
      });
    }
    process.on("SIGHUP", () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGHUP");
    });
  }

  /** Forks the workers; the port is served (`reservation`) once the first of them serves. */
  start(reservation: net.Server): void {
    if (this.#stopping) {
      void this.#stopAll();
      return;
    }
    this.#door = new FrontDoor({
      reservation,
      port: this.#config.port,
      onServing: () => this.#settleDemoKey(),
      onError: (error) => {
        this.#log.error("server error", errorFields(error));
        if (this.#stopping) return;
        this.#stopping = true;
        void this.#stopAll(1);
      },
    });
    this.#forked = true;
    const gc = workerGc(this.#workers, availableParallelism());
    if (gc.length > 0) cluster.setupPrimary({ execArgv: [...process.execArgv, ...gc] });
    for (let i = 0; i < this.#workers; i++) this.#fork(this.#door);
  }

  // During start-up a stop waits for the current step (a demo build) to end; then nothing is forked and the exit is 0.
  #stop(signal: NodeJS.Signals): void {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#stopSignal = signal;
    if (this.#forked) void this.#stopAll();
    else this.#log.info("shutting down", { signal, during: "start-up" });
  }

  #fork(door: FrontDoor): void {
    const worker = cluster.fork();
    const asker = askerOf(worker, this.#log);
    worker.on("message", (message: unknown) => {
      if (isServiceMessage(message)) this.#heard(worker, asker, door, message as WorkerMessage);
    });
    worker.on("exit", (code, signal) => this.#exited(worker, asker, door, { code, signal }));
  }

  /** A message from a worker: it serves, its connections close, it stops, or it asks the hub. */
  #heard(worker: Worker, asker: Asker, door: FrontDoor, sent: WorkerMessage): void {
    if ("listening" in sent) {
      const details = sent.listening;
      void door.listen().then((port) => {
        if (this.#stopping || worker.isDead()) return;
        this.#failedStarts = 0;
        this.#listeningWorkers.add(worker.id);
        door.add(worker);
        this.#log.info("worker listening", { worker: worker.id, pid: worker.process.pid, port });
        door.dealWaiting();
        if (!this.#announced && this.#listeningWorkers.size >= this.#workers) {
          this.#announced = true;
          this.#announce({ port, ...details });
        }
      });
      return;
    }
    if ("closed" in sent) {
      door.closed(worker, sent.closed);
      return;
    }
    if ("stopping" in sent) {
      door.remove(worker);
      return;
    }
    if ("returned" in sent) {
      this.#hub.returned(asker, sent.returned.keyId, sent.returned.window, sent.returned.ranges);
      return;
    }
    this.#hub.handle(asker, sent.id, sent.ask).catch((error: unknown) => this.#log.error("worker question failed", { worker: worker.id, ...errorFields(error) }));
  }

  /** A worker died: replaced, unless the service is stopping, never started, or its workers keep failing to start. */
  #exited(worker: Worker, asker: Asker, door: FrontDoor, how: { code: number; signal: string }): void {
    const { code, signal } = how;
    this.#hub.gone(asker);
    door.remove(worker);
    const wasListening = this.#listeningWorkers.delete(worker.id);
    if (this.#stopping) return;
    if (!this.#announced) {
      this.#log.error("a worker failed to start; stopping", { worker: worker.id, code, signal });
      this.#stopping = true;
      void this.#stopAll(1);
      return;
    }
    if (!wasListening && ++this.#failedStarts >= MAX_FAILED_STARTS) {
      this.#log.error("workers keep failing to start; stopping", { failedStarts: this.#failedStarts });
      this.#stopping = true;
      void this.#stopAll(1);
      return;
    }
    this.#log.warn("worker exited; starting another", { worker: worker.id, pid: worker.process.pid, code, signal });
    setTimeout(() => {
      if (!this.#stopping) this.#fork(door);
    }, RESTART_DELAY_MS).unref();
  }

  /**
   * Once, as the port starts to serve: a worker (or its replacement) never replaces the printed key, and a start
   * whose workers never serve changes none. With DATABASE_URL the keys are in PostgreSQL, made with `npm run keys`
   * only; each worker revokes the demo keys there.
   */
  #settleDemoKey(): void {
    const config = this.#config;
    if (config.databaseUrl !== undefined) return;
    const manifest = readManifest(dataDirLayout(config.dataDir).current);
    const keyStore = openKeyStore({ dataDir: config.dataDir });
    try {
      if (isDemoSet(manifest)) this.#demoKey = issueDemoKey(keyStore, this.#log);
      else revokeDemoKeys(keyStore, manifest.dataset, this.#log);
    } finally {
      keyStore.close();
    }
  }

  /** `listening`, once every worker serves, with the demo key's banner or a warning that no key is usable. */
  #announce(details: { port: number; dataset: string; builtAt: string; usableKeys: number }): void {
    const config = this.#config;
    const url = `http://${config.host}:${details.port}`;
    this.#log.info("listening", {
      url,
      pid: process.pid,
      workers: this.#workers,
      dataset: details.dataset,
      builtAt: details.builtAt,
      liveFetch: config.liveFetch ? config.youtubeOrigin : "off",
      proxies: config.youtubeProxyUrls.length,
    });
    if (this.#demoKey !== undefined) process.stdout.write(demoKeyBanner(url, this.#demoKey));
    else if (details.usableKeys === 0) this.#log.warn(NO_USABLE_KEY);
  }

  /** SIGTERM to every worker (each stops gracefully), then exit once all are gone. */
  async #stopAll(exitCode = 0): Promise<void> {
    this.#door?.close();
    const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    if (exitCode === 0) this.#log.info("shutting down", { signal: this.#stopSignal, workers: running.length, graceMs: this.#config.shutdownGraceMs });
    await Promise.all(
      running.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once("exit", () => resolve());
            worker.process.kill("SIGTERM");
          }),
      ),
    );
    if (exitCode === 0) this.#log.info("stopped", { clean: true });
    process.exit(exitCode);
  }
}

/** How the hub answers one worker, and asks it to give back a rate-limit lease. */
function askerOf(worker: Worker, log: Logger): Asker {
  return {
    id: worker.id,
    reply(id, answer) {
      if (!worker.isConnected()) return;
      const message: PrimaryMessage = { channel: CHANNEL, id, answer };
      worker.send(message, undefined, (error: Error | null) => {
        if (error) log.debug("answer to a worker lost", { worker: worker.id, ...errorFields(error) });
      });
    },
    recall(keyId, window) {
      if (!worker.isConnected()) return;
      const message: PrimaryMessage = { channel: CHANNEL, recall: { keyId, window } };
      // A recall that is lost times out in the hub, and what the worker held counts as taken.
      worker.send(message, undefined, () => undefined);
    },
  };
}

/**
 * Node options each worker gets for its garbage collector. With a worker for
 * every core, V8's helper threads collecting garbage in parallel beside a
 * worker run on the cores the other workers need, and take them from their
 * requests: each worker then collects on its own thread.
 */
export function workerGc(workers: number, cores: number): string[] {
  return workers >= cores ? ["--single-threaded-gc"] : [];
}
