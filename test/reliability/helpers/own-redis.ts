/**
 * A redis-server of one test's own, on a free loopback port, that the test
 * may stop and start again on the same port, or freeze and thaw (SIGSTOP,
 * SIGCONT: connections stay open and nothing answers), without touching the
 * shared Redis on 6379. No persistence: a restarted server is empty, as
 * after a crash without AOF.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { until } from "./child.js";
import { accepts, freePort } from "./ports.js";

export interface OwnRedis {
  readonly port: number;
  readonly url: string;
  /** Starts the server (again), and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Kills the server (SIGKILL: gone at once, as a crash) and waits for its exit. */
  stop(): Promise<void>;
  /** Freezes the server (SIGSTOP): it keeps its connections and port but answers nothing. */
  pause(): void;
  /** Thaws a frozen server (SIGCONT): it answers what it was sent meanwhile, then goes on. */
  resume(): void;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
      await until(() => accepts(port), 10_000, `redis-server on port ${port}`);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGKILL");
      await exited;
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
  };
}

/** Whether redis-server can be started here; otherwise prints the skip line. */
export async function redisServerInstalled(what: string): Promise<boolean> {
  const found = await new Promise<boolean>((resolve) => {
    const probe = spawn("redis-server", ["--version"], { stdio: "ignore" });
    probe.once("error", () => resolve(false));
    probe.once("exit", (code) => resolve(code === 0));
  });
  if (!found) console.log(`skipped: ${what} (no redis-server binary; install one with: sudo apt-get install redis-server)`);
  return found;
}
