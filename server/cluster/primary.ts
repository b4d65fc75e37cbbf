/**
 * `npm start` with WORKERS > 1: the primary process. It binds the port first
 * (a port in use stops the start before anything else), makes sure a set is
 * published (the demo one on first start), then forks the workers, each a
 * whole server (`main.ts`), and answers their questions about the state they
 * share (`hub.ts`). It serves the port once the first worker serves, issuing
 * the demo key then (once, so a start that never serves changes no key), and
 * hands each connection it accepts to the worker with the fewest open
 * (balancer.ts). It logs `listening` once every worker serves, replaces a
 * worker that dies, passes SIGHUP on, and on SIGTERM/SIGINT stops listening,
 * then stops every worker gracefully before it exits.
 */
import cluster, { type Worker } from "node:cluster";
import net from "node:net";
import { availableParallelism } from "node:os";
import { demoKeyBanner, ensureServableSet, isDemoSet, issueDemoKey, NoArtifactSetError, revokeDemoKeys } from "../start/demo.js";
import { openKeyStore } from "../auth/key-store.js";
import { NO_USABLE_KEY } from "../auth/usable-keys.js";
import type { Config } from "../config.js";
import { errorFields, type Logger } from "../log.js";
import { readManifest } from "../../pipeline/artifact/manifest.js";
import { dataDirLayout } from "../../pipeline/artifact/layout.js";
import { ListenError, reservePort } from "../start/port-reservation.js";
import { startedByNpmScript, whenParentGone } from "../start/parent-watch.js";
import { LeastConnections } from "./balancer.js";
import { Hub, type Asker } from "./hub.js";
import { CHANNEL, isServiceMessage, type PrimaryMessage, type WorkerMessage } from "./messages.js";

/** A worker that dies before it listens this many times in a row stops the service (a crash loop helps nobody). */
const MAX_FAILED_STARTS = 5;
/** Wait before a replacement, so a worker that dies at once does not spin the CPU. */
const RESTART_DELAY_MS = 500;
/** Connections accepted while no worker takes any (all are being replaced), held for the next; past this many, closed. */
const MAX_WAITING_CONNECTIONS = 1024;

export async function runPrimary(config: Config, workers: number, log: Logger): Promise<void> {
  let stopping = false;
  let forked = false;
  let stopSignal: NodeJS.Signals | undefined;
  // During start-up a stop waits for the current step (a demo build) to end; then nothing is forked and the exit is 0.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    stopSignal = signal;
    if (forked) void stopAll();
    else log.info("shutting down", { signal, during: "start-up" });
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  // Under `npm start`, npm gone (killed outright, so it passed no signal on) stops the service as SIGTERM would.
  if (startedByNpmScript(process.env)) {
    whenParentGone(() => {
      log.warn("the npm process that started the server is gone; stopping");
      onSignal("SIGTERM");
    });
  }
  process.on("SIGHUP", () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGHUP");
  });

  // Before anything slow or lasting: a port in use is one line, and nothing has changed yet.
  let reservation: net.Server;
  try {
    reservation = await reservePort(config.host, config.port);
  } catch (error) {
    if (error instanceof ListenError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  try {
    await ensureServableSet(config, log);
  } catch (error) {
    if (error instanceof NoArtifactSetError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  if (stopping) return stopAll();
  let demoKey: string | undefined;
  /**
   * Once, as the port starts to serve: a worker (or its replacement) never replaces the printed key, and a start
   * whose workers never serve changes none. With DATABASE_URL the keys are in PostgreSQL, made with `npm run keys`
   * only; each worker revokes the demo keys there.
   */
  const settleDemoKey = (): void => {
    if (config.databaseUrl !== undefined) return;
    const manifest = readManifest(dataDirLayout(config.dataDir).current);
    const keyStore = openKeyStore({ dataDir: config.dataDir });
    try {
      if (isDemoSet(manifest)) demoKey = issueDemoKey(keyStore, log);
      else revokeDemoKeys(keyStore, manifest.dataset, log);
    } finally {
      keyStore.close();
    }
  };

  const hub = new Hub({
    rateLimitPerMinute: config.rateLimitPerMinute,
    negativeCacheMs: config.negativeCacheSeconds * 1000,
    negativeCacheSize: config.negativeCacheSize,
    onLateRecall: (holders, timeoutMs) =>
      log.warn("workers did not give back their rate-limit leases in time; what they held counts as used this minute", { workers: holders, timeoutMs }),
  });
  const listeningWorkers = new Set<number>();
  let announced = false;
  let failedStarts = 0;

  // The port: accepted here, paused, so that the worker given a connection reads its every byte.
  const balancer = new LeastConnections<Worker>();
  const waiting: net.Socket[] = [];
  const front = net.createServer({ pauseOnConnect: true, noDelay: true });
  let bound: Promise<number> | undefined;
  const deal = (socket: net.Socket): void => {
    const worker = balancer.pick();
    if (worker === undefined) {
      if (waiting.length < MAX_WAITING_CONNECTIONS) waiting.push(socket);
      else socket.destroy();
      return;
    }
    const message: PrimaryMessage = { channel: CHANNEL, connection: true };
    worker.send(message, socket, { keepOpen: false }, (error: Error | null) => {
      if (error === null) return;
      balancer.closed(worker);
      socket.destroy();
    });
  };
  front.on("connection", (socket: net.Socket) => {
    // Until it is handed over, an error (a reset while it waits for a worker) is this socket's end, not the primary's.
    socket.on("error", () => socket.destroy());
    deal(socket);
  });
  front.on("error", (error) => {
    log.error("server error", errorFields(error));
    if (stopping) return;
    stopping = true;
    void stopAll(1);
  });
  /** Serves the port bound at start once (when the first worker serves) and resolves with the port. */
  const listen = (): Promise<number> =>
    (bound ??= new Promise((resolve) => {
      // Connections are read only after this callback, so none is dealt before the demo key is settled.
      front.listen(reservation, () => {
        settleDemoKey();
        const address = front.address();
        resolve(typeof address === "object" && address !== null ? address.port : config.port);
      });
    }));

  const fork = (): void => {
    const worker = cluster.fork();
    const asker: Asker = {
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
    worker.on("message", (message: unknown) => {
      if (!isServiceMessage(message)) return;
      const sent = message as WorkerMessage;
      if ("listening" in sent) {
        const details = sent.listening;
        void listen().then((port) => {
          if (stopping || worker.isDead()) return;
          failedStarts = 0;
          listeningWorkers.add(worker.id);
          balancer.add(worker);
          log.info("worker listening", { worker: worker.id, pid: worker.process.pid, port });
          for (const socket of waiting.splice(0)) deal(socket);
          if (!announced && listeningWorkers.size >= workers) {
            announced = true;
            announce({ port, ...details });
          }
        });
        return;
      }
      if ("closed" in sent) {
        balancer.closed(worker, sent.closed);
        return;
      }
      if ("stopping" in sent) {
        balancer.remove(worker);
        return;
      }
      if ("returned" in sent) {
        hub.returned(asker, sent.returned.keyId, sent.returned.window, sent.returned.ranges);
        return;
      }
      hub.handle(asker, sent.id, sent.ask).catch((error: unknown) => log.error("worker question failed", { worker: worker.id, ...errorFields(error) }));
    });
    worker.on("exit", (code, signal) => {
      hub.gone(asker);
      balancer.remove(worker);
      const wasListening = listeningWorkers.delete(worker.id);
      if (stopping) return;
      if (!announced) {
        log.error("a worker failed to start; stopping", { worker: worker.id, code, signal });
        stopping = true;
        void stopAll(1);
        return;
      }
      if (!wasListening && ++failedStarts >= MAX_FAILED_STARTS) {
        log.error("workers keep failing to start; stopping", { failedStarts });
        stopping = true;
        void stopAll(1);
        return;
      }
      log.warn("worker exited; starting another", { worker: worker.id, pid: worker.process.pid, code, signal });
      setTimeout(() => {
        if (!stopping) fork();
      }, RESTART_DELAY_MS).unref();
    });
  };

  const announce = (details: { port: number; dataset: string; builtAt: string; usableKeys: number }): void => {
    const url = `http://${config.host}:${details.port}`;
    log.info("listening", {
      url,
      pid: process.pid,
      workers,
      dataset: details.dataset,
      builtAt: details.builtAt,
      liveFetch: config.liveFetch ? config.youtubeOrigin : "off",
      proxies: config.youtubeProxyUrls.length,
    });
    if (demoKey !== undefined) process.stdout.write(demoKeyBanner(url, demoKey));
    else if (details.usableKeys === 0) log.warn(NO_USABLE_KEY);
  };

  /** SIGTERM to every worker (each stops gracefully), then exit once all are gone. */
  async function stopAll(exitCode = 0): Promise<void> {
    // No new connections: those open are the workers' to finish.
    if (front.listening) front.close();
    for (const socket of waiting.splice(0)) socket.destroy();
    const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    if (exitCode === 0) log.info("shutting down", { signal: stopSignal, workers: running.length, graceMs: config.shutdownGraceMs });
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
    if (exitCode === 0) log.info("stopped", { clean: true });
    process.exit(exitCode);
  }

  if (stopping) return stopAll();
  forked = true;
  const gc = workerGc(workers, availableParallelism());
  if (gc.length > 0) cluster.setupPrimary({ execArgv: [...process.execArgv, ...gc] });
  for (let i = 0; i < workers; i++) fork();
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
