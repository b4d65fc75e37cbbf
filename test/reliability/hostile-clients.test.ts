/**
 * Slow and hostile clients: oversized heads and bodies, slowloris headers and
 * bodies, idle sockets, the global connection cap, and one client holding many
 * slow connections while another still gets answers. Timeouts are set short so
 * the cut-offs can be measured.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "../server/helpers/test-server.js";
import { until } from "./helpers/child.js";
import { rawRequest, wait, type RawResponse } from "./helpers/raw-http.js";
import { expectSaneAnswer } from "./helpers/response-checks.js";

const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1_500;
/**
 * What node may add on top: its sweep (a tenth of the timeout here) and a machine shared with
 * other test runs. Far below the 30 s that node's default sweep allowed before.
 */
const SLACK_MS = 1_500;

let artifacts: Artifacts;
let server: TestServer;
let port = 0;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({
    artifacts,
    env: {
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: "500",
      MAX_CONNECTIONS: "40",
      MAX_CONNECTIONS_PER_CLIENT: "10",
      RATE_LIMIT_PER_MINUTE: "1000000",
      LOG_LEVEL: "silent",
    },
  });
  port = Number(new URL(server.baseUrl).port);
});
afterAll(async () => {
  await server?.close();
  artifacts?.cleanup();
});

const head = (extra = "") => `GET /v1/stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${server.keys.pro}\r\n${extra}\r\n`;

/** Writes `text` one byte every `everyMs` until the socket closes; never finishes on its own. */
function trickle(text: string, everyMs: number) {
  return (socket: net.Socket) => {
    let i = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      socket.write(text[i % text.length] as string);
      i++;
    }, everyMs);
    socket.once("close", () => clearInterval(timer));
  };
}

/** A socket from `localAddress` that has sent a partial head and keeps trickling it; resolves once connected. */
function slowConnection(localAddress: string): Promise<{ socket: net.Socket; closed: Promise<number> }> {
  return new Promise((resolve) => {
    const opened = performance.now();
    const socket = net.connect({ port, host: "127.0.0.1", localAddress });
    socket.on("error", () => undefined);
    // Reads what it is sent (the 408), so it sees the server close; one that never reads is destroyed a second later.
    socket.resume();
    const closed = new Promise<number>((done) => socket.once("close", () => done(performance.now() - opened)));
    socket.once("connect", () => {
      socket.write("GET /v1/stats HTTP/1.1\r\nHost: x\r\n");
      trickle("X-Padding: aaaa\r\n", 50)(socket);
      resolve({ socket, closed });
    });
  });
}

describe("size limits", () => {
  test("a request head over MAX_HEADER_BYTES gets 431 as a problem, one just under it is served", async () => {
    const over = await rawRequest(port, head(`X-Big: ${"a".repeat(17_000)}\r\n`));
    expectSaneAnswer(over, "16 KiB header");
    expect(over.status).toBe(431);
    expect(JSON.parse(over.body).code).toBe("headers_too_large");
    const under = await rawRequest(port, head(`X-Big: ${"a".repeat(15_000)}\r\n`));
    expect(under.status).toBe(200);
  });

  test("a request line of 100 KB gets 431, not a crash", async () => {
    const res = await rawRequest(port, `GET /v1/search?q=${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectSaneAnswer(res, "long request line");
    expect(res.status).toBe(431);
  });

  test("a HEAD request line of 100 KB gets 431 with its headers and no body", async () => {
    const res = await rawRequest(port, `HEAD /v1/transcript/${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.body).toBe("");
  });
});

describe("timeouts", () => {
  test("a slowloris trickling headers is answered 408 and cut within HEADERS_TIMEOUT_MS", async () => {
    const res = await rawRequest(port, "GET /v1/stats HTTP/1.1\r\nHost: x\r\n", { body: trickle("X-Slow: 1\r\n", 50), timeoutMs: 10_000 });
    expectSaneAnswer(res, "slowloris headers");
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body).code).toBe("request_timeout");
    expect(res.ms).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(res.ms).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  test("a client trickling its body is cut within REQUEST_TIMEOUT_MS", async () => {
    const res = await rawRequest(
      port,
      `POST /v1/transcripts/bulk HTTP/1.1\r\nHost: x\r\nX-API-Key: ${server.keys.pro}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n`,
      { body: trickle(" ", 50), timeoutMs: 10_000 },
    );
    expectSaneAnswer(res, "slow body");
    expect(res.status).toBe(408);
    expect(res.ms).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  test("a connection that never sends a byte is closed within HEADERS_TIMEOUT_MS", async () => {
    const res = await rawRequest(port, "", { timeoutMs: 10_000 });
    expect(res.ms).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  test("an idle keep-alive connection is closed rather than held open", async () => {
    const res = await rawRequest(port, head().replace("Connection: close\r\n", ""), { timeoutMs: 10_000 });
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });
});

describe("connection caps", () => {
  test("one client holding many slow connections keeps only MAX_CONNECTIONS_PER_CLIENT, and another client is served meanwhile", async () => {
    const hostile = await Promise.all(Array.from({ length: 30 }, () => slowConnection("127.0.0.2")));
    // The server drops the extra ones at once; on a busy machine the client may see it a little later.
    await until(() => hostile.filter(({ socket }) => !socket.destroyed).length <= 10, 5_000, "connections past the cap to be dropped");
    expect(hostile.filter(({ socket }) => !socket.destroyed).length).toBe(10);

    const started = performance.now();
    const answers: RawResponse[] = await Promise.all(Array.from({ length: 20 }, () => rawRequest(port, head(), { localAddress: "127.0.0.1" })));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    // Served, not starved: a starved client would wait for the hostile connections to time out, or forever.
    expect(performance.now() - started).toBeLessThan(5_000);

    // And the slow ones that were let in are cut by the header timeout anyway.
    const lifetimes = await Promise.all(hostile.map(({ closed }) => closed));
    expect(Math.max(...lifetimes)).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  test("connections beyond MAX_CONNECTIONS are dropped, and accepted again once others close", async () => {
    // Four addresses, ten each: the per-client cap is not what stops them.
    const held = await Promise.all(Array.from({ length: 40 }, (_, i) => slowConnection(`127.0.0.${3 + (i % 4)}`)));
    await wait(100);
    const dropped = await rawRequest(port, head(), { localAddress: "127.0.0.9", timeoutMs: 5_000 });
    expect(dropped.status).toBe(0); // closed without an answer
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map(({ closed }) => closed));
    await wait(50);
    const served = await rawRequest(port, head(), { localAddress: "127.0.0.9" });
    expect(served.status).toBe(200);
  });
});
