/**
 * wrk (Debian's package `wrk`) as the workers phase's load generator: a C
 * client on one thread takes a fraction of the CPU per request that
 * autocannon in the bench's own Node process takes. The load generator runs
 * on the same cores as the servers, so its share weighs on two workers,
 * which use both cores, and not on one: the lighter it is, the more the
 * ratio measures the server. The figures are read from a line its Lua
 * script's `done` writes, not from its text report.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { CannonFigures } from "./serving.js";

const run = promisify(execFile);

/** Whether `wrk` runs on this machine. */
export function wrkAvailable(): boolean {
  // wrk prints its usage and exits 1 without a URL; a missing binary is an error of spawn.
  return spawnSync("wrk", ["--version"], { stdio: "ignore" }).error === undefined;
}

/** A Lua string literal of `text`. */
function luaString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, "\\n")}"`;
}

/** The Lua script: GET each path in turn with the key, then one line of figures (microseconds, counts). */
export function wrkScript(paths: readonly string[], apiKey: string): string {
  return [
    `wrk.headers["x-api-key"] = ${luaString(apiKey)}`,
    `local paths = {${paths.map(luaString).join(",\n")}}`,
    "local next = 0",
    "request = function()",
    "  next = next % #paths + 1",
    '  return wrk.format("GET", paths[next])',
    "end",
    "done = function(summary, latency, requests)",
    "  local e = summary.errors",
    '  io.write(string.format("WRK_FIGURES %d %d %d %d %d %d\\n", summary.requests, summary.duration, summary.bytes,',
    "    latency:percentile(99), e.connect + e.read + e.write + e.timeout, e.status))",
    "end",
  ].join("\n");
}

/** The figures of a `WRK_FIGURES` line (wrkScript) in wrk's output. */
export function parseWrkFigures(output: string): CannonFigures {
  const match = /^WRK_FIGURES (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/m.exec(output);
  if (!match) throw new Error(`wrk wrote no figures; its output:\n${output}`);
  const [requests, durationUs, bytes, p99Us, errors, non2xx] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const seconds = durationUs / 1e6;
  return { requestsPerSecond: requests / seconds, megabytesPerSecond: bytes / seconds / 2 ** 20, p99Ms: p99Us / 1000, non2xx, errors };
}

/** GETs `paths` in turn on `connections` connections for `seconds`, from one wrk thread. */
export async function runWrk(origin: string, paths: readonly string[], options: { apiKey: string; seconds: number; connections: number }): Promise<CannonFigures> {
  const dir = await mkdtemp(join(tmpdir(), "bench-wrk-"));
  try {
    const script = join(dir, "paths.lua");
    await writeFile(script, wrkScript(paths, options.apiKey));
    const { stdout } = await run("wrk", ["-t1", `-c${options.connections}`, `-d${options.seconds}s`, "--timeout", "30s", "-s", script, origin], {
      maxBuffer: 16 * 2 ** 20,
    });
    return parseWrkFigures(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
