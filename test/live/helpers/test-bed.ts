/**
 * The hooks a file of live-server tests shares: one YouTube stand-in for the
 * file, and the servers and temp folders each test makes, closed and removed
 * after it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { startStandin, type Standin } from "../../../scripts/youtube-standin/server.js";
import { upstreamCorpus } from "./live-corpus.js";
import { startLiveServer, type LiveServer, type LiveServerOptions } from "./live-server.js";

export interface LiveTestBed {
  /** The file's stand-in (started before the first test). */
  readonly standin: Standin;
  /** A server on the file's stand-in, closed after the test. */
  start(options?: LiveServerOptions): Promise<LiveServer>;
  /** A new temp folder, removed after the test. */
  tempDir(prefix: string): string;
}

export function liveTestBed(): LiveTestBed {
  let standin: Standin | undefined;
  const servers: LiveServer[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    standin = await startStandin({ corpus: upstreamCorpus() });
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await standin?.close();
  });
  const bed: LiveTestBed = {
    get standin() {
      if (standin === undefined) throw new Error("the stand-in starts in beforeAll");
      return standin;
    },
    async start(options = {}) {
      const server = await startLiveServer({ standin: bed.standin, ...options });
      servers.push(server);
      return server;
    },
    tempDir(prefix) {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
  return bed;
}
