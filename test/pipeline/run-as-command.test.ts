/**
 * The frame of the pipeline's commands (pipeline/command/run-as-command.ts),
 * in-process with a real lock file: a held lock ends a command with its
 * message and exit 3 before its work runs; an error the command lists ends
 * it with its line and code, one it does not list is thrown; the locks and
 * the signal listeners are let go whichever way the work ends. How the
 * commands stop on SIGTERM is shown on real processes (run-stop.test.ts,
 * fetch-queue.test.ts).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { EXIT, UsageError } from "../../pipeline/command/exit-codes.js";
import { BuildInterrupted } from "../../pipeline/command/interrupt.js";
import { runAsCommand } from "../../pipeline/command/run-as-command.js";
import { takeRunLocks } from "../../pipeline/state/run-locks.js";

const dir = mkdtempSync(path.join(tmpdir(), "run-as-command-"));
const lockPath = path.join(dir, "pipeline", "run.lock");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const stop = { first: () => undefined, again: "default" } as const;

function said(): () => string[] {
  const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
  return () => spy.mock.calls.map((call) => String(call[0]));
}

describe("runAsCommand", () => {
  test("a lock held elsewhere ends the command with the lock's message and exit 3, and the work never runs", async () => {
    const held = await takeRunLocks({ lockPath });
    const lines = said();
    const work = vi.fn(async () => EXIT.ok);
    try {
      expect(await runAsCommand({ lock: { lockPath }, stop, exits: [], work })).toBe(EXIT.locked);
    } finally {
      await held.release();
    }
    expect(work).not.toHaveBeenCalled();
    expect(lines()).toEqual([expect.stringMatching(/run\.lock/)]);
  });

  test("holds the lock while the work runs and lets it go after, with the work's exit code", async () => {
    const code = await runAsCommand({
      lock: { lockPath },
      stop,
      exits: [],
      work: async ({ locks, signal }) => {
        expect(locks).toBeDefined();
        expect(existsSync(lockPath)).toBe(true);
        expect(signal.aborted).toBe(false);
        return EXIT.partial;
      },
    });
    expect(code).toBe(EXIT.partial);
    expect(existsSync(lockPath)).toBe(false);
  });

  test("an error the command lists ends it with its line and code, first match first; the lock and the listeners are let go", async () => {
    const listeners = process.listenerCount("SIGTERM");
    const lines = said();
    const code = await runAsCommand({
      lock: { lockPath },
      stop,
      exits: [
        [BuildInterrupted, EXIT.interrupted, (error) => `${error.message}; out/ is incomplete`],
        [Error, EXIT.failed],
      ],
      work: async () => {
        expect(process.listenerCount("SIGTERM")).toBe(listeners + 1);
        throw new BuildInterrupted("The build was interrupted: interrupted by SIGTERM");
      },
    });
    expect(code).toBe(EXIT.interrupted);
    expect(lines()).toEqual(["The build was interrupted: interrupted by SIGTERM; out/ is incomplete"]);
    expect(existsSync(lockPath)).toBe(false);
    expect(process.listenerCount("SIGTERM")).toBe(listeners);
  });

  test("an error the command does not list is thrown, after the lock is let go", async () => {
    const failure = runAsCommand({ lock: { lockPath }, stop, exits: [[UsageError, EXIT.usage]], work: async () => Promise.reject(new RangeError("a bug")) });
    await expect(failure).rejects.toThrow(RangeError);
    expect(existsSync(lockPath)).toBe(false);
  });

  test("a check before the lock that fails ends the command as listed, before any lock is taken", async () => {
    const lines = said();
    const work = vi.fn(async () => EXIT.ok);
    const code = await runAsCommand({
      before: async () => {
        throw new UsageError("build: --input missing.jsonl: no such file");
      },
      lock: { lockPath },
      stop,
      exits: [[UsageError, EXIT.usage]],
      work,
    });
    expect(code).toBe(EXIT.usage);
    expect(lines()).toEqual(["build: --input missing.jsonl: no such file"]);
    expect(work).not.toHaveBeenCalled();
    expect(existsSync(lockPath)).toBe(false);
  });
});
