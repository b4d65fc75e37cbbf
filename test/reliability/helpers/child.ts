/** Child processes of this repository's entry points (`node --import tsx <script>`), with output captured. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..", "..");

export interface Child {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Settings of every server these tests start: no start-up warm-up searches
 * and practice requests, which make a fresh process's first requests quicker
 * and change no answer (test/search/search-warmup.test.ts,
 * test/server/serving-practice.test.ts and test/server/main.test.ts test
 * them), and lengthen every start.
 */
export const TEST_SERVER_ENV: Readonly<Record<string, string>> = { SEARCH_MEMORY_HELPERS: "-warmup" };

export function startChild(script: string, args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { process: child, stdout: () => stdout, stderr: () => stderr, exited };
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A small seeded generator (mulberry32), so a failing kill schedule can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
