/**
 * The shipped HAProxy configuration (deploy/haproxy/transcript-service.cfg),
 * run as it is with only its addresses changed: the frontend's `bind` and one
 * `server` line per replica. Skipped with one line where `haproxy` is not
 * installed; `.ci/run` installs it.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { accepts, freePort } from "./ports.js";
import { REPO_ROOT, until } from "./child.js";

export const HAPROXY_CONFIG = path.join(REPO_ROOT, "deploy/haproxy/transcript-service.cfg");

/** true when the `haproxy` command runs; otherwise prints the skip line and returns false. */
export function haproxyAvailable(what: string): boolean {
  if (spawnSync("haproxy", ["-v"], { encoding: "utf8" }).status === 0) return true;
  console.log(`skipped: ${what} (no haproxy command; install it with: sudo apt-get install haproxy)`);
  return false;
}

/** `haproxy -c -f <file>`: exit status and what it printed. */
export function checkConfig(file: string): { status: number | null; output: string } {
  const result = spawnSync("haproxy", ["-c", "-f", file], { encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

const BIND = /^(\s*bind\s+)\S+/m;
const SERVER = /^(\s*server\s+)(\S+)(\s+)(\S+)(.*)$/;

const PRIVILEGES = /^\s*(user|group|chroot)\s/;

/**
 * The shipped file with `bind` on `listen` and the backend's `server` lines
 * replaced by one per address (named as the shipped lines are, numbered from 1,
 * with the first line's options). Nothing else changes, except that a test
 * not running as root drops `user`, `group` and `chroot`: only root may
 * switch to them, and such a process holds no privileges to give up.
 */
export function renderConfig(text: string, listen: string, servers: string[], asRoot = process.getuid?.() === 0): string {
  if (!BIND.test(text)) throw new Error("no bind line in the HAProxy configuration");
  const lines = text
    .replace(BIND, `$1${listen}`)
    .split("\n")
    .filter((line) => asRoot || !PRIVILEGES.test(line));
  const first = lines.findIndex((line) => SERVER.test(line));
  if (first < 0) throw new Error("no server line in the HAProxy configuration");
  let count = 0;
  while (SERVER.test(lines[first + count] ?? "")) count++;
  const [, lead, name, gap, , rest] = SERVER.exec(lines[first]!)!;
  const stem = name!.replace(/\d+$/, "");
  const rendered = servers.map((address, i) => `${lead}${stem}${i + 1}${gap}${address}${rest}`);
  lines.splice(first, count, ...rendered);
  return lines.join("\n");
}

export interface Haproxy {
  /** `http://127.0.0.1:<port>` of the frontend. */
  url: string;
  /** The rendered configuration it runs. */
  config: string;
  /** HAProxy's log (stdout) so far. */
  log(): string;
  stop(): Promise<void>;
}

/** Runs the shipped configuration in the foreground, in front of `servers` (host:port each), on a free loopback port. */
export async function startHaproxy(servers: string[]): Promise<Haproxy> {
  const port = await freePort();
  const config = renderConfig(readFileSync(HAPROXY_CONFIG, "utf8"), `127.0.0.1:${port}`, servers);
  const dir = mkdtempSync(path.join(tmpdir(), "haproxy-"));
  const file = path.join(dir, "haproxy.cfg");
  writeFileSync(file, config);
  const child = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy exited ${child.exitCode}: ${output}`);
        return accepts(port);
      },
      10_000,
      "haproxy to listen",
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, config, log: () => output, stop };
}
