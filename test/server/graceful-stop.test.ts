/**
 * SIGTERM to the real server (`server/main.ts`, a child process), alone and
 * with WORKERS=2, while clients on slow links read responses of megabytes:
 * each body arrives whole (the bytes of the same request made with no stop),
 * each keep-alive connection is closed after its response with a FIN, never
 * reset, a request received before the stop is answered with
 * `Connection: close`, and only what is still being sent when
 * SHUTDOWN_GRACE_MS is over is cut, the log saying how many.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { newBuildDir, publishBuild } from "../../pipeline/publish/publish.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { makeVideo, videoId } from "../helpers/records.js";
import { until } from "../reliability/helpers/child.js";
import { startServerProcess, type ServerProcess } from "../reliability/helpers/server-process.js";
import { SlowConnection, type ReadResponse } from "./helpers/slow-connection.js";

/** Words in each long transcript: its JSON is about 9 MB, more than the kernel's socket buffers hold for a client that does not read. */
const LONG_WORDS = 400_000;
const LONG_VIDEOS = [1, 2, 3];
const VOCABULARY = ["river", "mill", "light", "energy", "plant", "stone", "water", "cloud", "north", "field"];

let dataDir: string;
let key: string;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "graceful-stop-"));
  const records = LONG_VIDEOS.map((n) => {
    const words: string[] = [];
    for (let i = 0; i < LONG_WORDS; i++) words.push(`${VOCABULARY[(i * 7 + n) % VOCABULARY.length]}${i % 97}`);
    return makeVideo(n, { text: words.join(" ") });
  });
  const build = newBuildDir(dataDir);
  await buildArtifacts({ records, outDir: build, dataset: "test" });
  await publishBuild(dataDir, build);
  const keys = openKeyStore({ dataDir });
  key = keys.create({ plan: "pro", name: "graceful-stop" }).key;
  keys.close();
}, 120_000);

afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(workers: number, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess(dataDir, { WORKERS: String(workers), ACCESS_LOG: "on", ...env });
  servers.push(server);
  return server;
}

const portOf = (server: ServerProcess): number => Number(new URL(server.baseUrl).port);

/** The server's JSON log lines so far. */
function logs(server: ServerProcess): Record<string, any>[] {
  return server.child
    .stdout()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** Resolves once every process serving (the one, or each worker) has begun its graceful stop. */
async function stopBegun(server: ServerProcess, workers: number): Promise<void> {
  await until(
    () => logs(server).filter((line) => line.msg === "shutting down" && (workers === 1 || line.worker !== undefined)).length >= workers,
    30_000,
    "the graceful stop to begin",
  );
}

let requests = 0;
const nextId = (): string => `stop-${process.pid}-${++requests}`;

/** GET of a long transcript (its segments and script). */
function transcriptRequest(n: number): { id: string; bytes: string } {
  const id = nextId();
  return { id, bytes: `GET /v1/transcript/${videoId(n)} HTTP/1.1\r\nHost: test\r\nX-API-Key: ${key}\r\nX-Request-Id: ${id}\r\n\r\n` };
}

/** POST /v1/transcripts/bulk of `videos`: its head (with `headers`) and its body. */
function bulkRequest(videos: number[], headers = ""): { id: string; head: string; body: string; bytes: string } {
  const id = nextId();
  const body = JSON.stringify({ videoIds: videos.map(videoId), fetchMissing: false });
  const head =
    `POST /v1/transcripts/bulk HTTP/1.1\r\nHost: test\r\nX-API-Key: ${key}\r\nX-Request-Id: ${id}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}\r\n`;
  return { id, head, body, bytes: head + body };
}

/** A body's hash without its `timing` field, the one part that differs between two answers to the same request. */
function digest(body: Buffer): string {
  return createHash("sha256")
    .update(body.toString("utf8").replace(/"timing":\{[^}]*\}/, '"timing":{}'))
    .digest("hex");
}

/** What the same request gets with no stop: its length and digest. */
async function reference(server: ServerProcess, request: { bytes: string }): Promise<{ length: number; digest: string }> {
  const connection = await SlowConnection.open(portOf(server));
  connection.write(request.bytes);
  const answer = await connection.response();
  connection.socket.end();
  expect(answer.status).toBe(200);
  return { length: answer.body.length, digest: digest(answer.body) };
}

function expectWhole(answer: ReadResponse, expected: { length: number; digest: string }): void {
  expect(answer.status).toBe(200);
  expect(answer.body.length).toBe(Number(answer.headers["content-length"]));
  // The same length with the timing field in it: the digest is the proof.
  expect(digest(answer.body)).toBe(expected.digest);
}

describe.each([1, 2])("SIGTERM with WORKERS=%i", (workers) => {
  test("clients on slow links reading large bodies get every byte; on keep-alive connections a request received before the stop is answered whole with Connection: close; each connection then gets a FIN, none a reset", async () => {
    const server = await start(workers, { SHUTDOWN_GRACE_MS: "30000" });
    const downloads = [transcriptRequest(1), transcriptRequest(2), bulkRequest(LONG_VIDEOS), transcriptRequest(3)];
    const expected = await Promise.all(downloads.map((request) => reference(server, request)));
    for (const e of expected) expect(e.length).toBeGreaterThan(8_000_000);
    const expectedSmall = await reference(server, bulkRequest([1]));

    // Each downloading client has had its first bytes, so its whole answer is written (sendJson writes a body
    // at once), and it reads no more: most of the body waits in the server's buffers when the signal comes.
    const slow = await Promise.all(downloads.map(() => SlowConnection.open(portOf(server))));
    await Promise.all(
      slow.map((connection, i) => {
        const paused = connection.pauseAtFirstBytes();
        connection.write(downloads[i]!.bytes);
        return paused;
      }),
    );
    // Keep-alive connections that have served a request each.
    const kept = await Promise.all(Array.from({ length: 8 }, () => SlowConnection.open(portOf(server))));
    for (const connection of kept) {
      connection.write(`GET /v1/stats HTTP/1.1\r\nHost: test\r\nX-API-Key: ${key}\r\n\r\n`);
      const answer = await connection.response();
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe("keep-alive");
    }
    // On half of them a request is in flight at the stop: its head received and answered with 100 Continue (so
    // the server surely has it), its body not yet sent. The other half are idle.
    const busy = kept.slice(0, 4);
    const idle = kept.slice(4);
    const inFlight = busy.map(() => bulkRequest([1], "Expect: 100-continue\r\n"));
    for (const [i, connection] of busy.entries()) {
      connection.write(inFlight[i]!.head);
      expect((await connection.response()).status).toBe(100);
    }

    const signalled = performance.now();
    server.child.process.kill("SIGTERM");
    await stopBegun(server, workers);
    // The idle ones are closed at once, with a FIN.
    for (const end of await Promise.all(idle.map((connection) => connection.ended))) expect(end).toEqual({ fin: true, error: undefined });
    // A slow link: one chunk every 2 ms, at most about 30 MB a second.
    for (const connection of slow) connection.readSlowly(2);
    const answers = await Promise.all(slow.map((connection) => connection.response()));
    answers.forEach((answer, i) => expectWhole(answer, expected[i]!));
    // The requests in flight are answered, and their connections closed after.
    for (const [i, connection] of busy.entries()) connection.write(inFlight[i]!.body);
    for (const connection of busy) {
      const answer = await connection.response();
      expectWhole(answer, expectedSmall);
      expect(answer.headers.connection).toBe("close");
    }
    for (const end of await Promise.all([...busy, ...slow].map((connection) => connection.ended))) expect(end).toEqual({ fin: true, error: undefined });

    expect((await server.child.exited).code).toBe(0);
    // Ended by the clients' reading, not by the grace period.
    expect(performance.now() - signalled).toBeLessThan(30_000);
    const lines = logs(server);
    expect(lines.filter((line) => line.msg === "stopped" && line.clean === true)).toHaveLength(workers === 1 ? 1 : workers + 1);
    // The access log says each was sent whole.
    for (const { id } of [...downloads, ...inFlight]) {
      const line = lines.find((l) => l.msg === "request" && l.requestId === id);
      expect(line, id).toMatchObject({ status: 200 });
      expect(line).not.toHaveProperty("aborted");
    }
  }, 120_000);
});

// In one process: each worker cuts its own connections the same way, and its primary waits for it (above).
describe("SIGTERM past the grace period", () => {
  test("a client still reading when SHUTDOWN_GRACE_MS is over is cut, and the log says how many were cut", async () => {
    const graceMs = 1_500;
    const server = await start(1, { SHUTDOWN_GRACE_MS: String(graceMs) });
    // Two that stop reading for good, one that reads its answer at once.
    const sent = [transcriptRequest(1), bulkRequest(LONG_VIDEOS), transcriptRequest(2)];
    const connections = await Promise.all(sent.map(() => SlowConnection.open(portOf(server))));
    const stalled = connections.slice(0, 2);
    await Promise.all(
      stalled.map((connection, i) => {
        const paused = connection.pauseAtFirstBytes();
        connection.write(sent[i]!.bytes);
        return paused;
      }),
    );
    const reader = connections[2]!;
    reader.write(sent[2]!.bytes);
    expect((await reader.response()).status).toBe(200);
    const signalled = performance.now();
    server.child.process.kill("SIGTERM");
    expect((await server.child.exited).code).toBe(0);
    const took = performance.now() - signalled;
    // It waited for them, and no longer than the grace period (and the time to close the databases).
    expect(took).toBeGreaterThan(graceMs - 100);
    expect(took).toBeLessThan(graceMs + 8_000);
    for (const connection of stalled) connection.read();
    for (const connection of stalled) {
      const answer = await connection.response();
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBeLessThan(Number(answer.headers["content-length"]));
    }
    const lines = logs(server);
    expect(lines.find((line) => line.msg === "grace period over; connections cut")).toMatchObject({ cut: 2, graceMs });
    expect(lines.find((line) => line.msg === "stopped")).toMatchObject({ clean: false });
    // The access log does not pass a cut body for a sent one; the one read at once was sent whole.
    for (const { id } of sent.slice(0, 2)) expect(lines.find((l) => l.msg === "request" && l.requestId === id)).toMatchObject({ status: 200, aborted: true, cut: true });
    expect(lines.find((l) => l.msg === "request" && l.requestId === sent[2]!.id)).not.toHaveProperty("aborted");
    // Its connection, idle at the stop, was closed with a FIN.
    expect(await reader.ended).toEqual({ fin: true, error: undefined });
  }, 120_000);
});
