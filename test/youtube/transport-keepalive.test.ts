/**
 * A kept-alive connection that the server closes just as the next request
 * goes out (its idle timer fired late, or it restarted) must not fail the
 * call: the transport sends it once more on a new connection. A reset after
 * the answer began, or twice in a row, still fails.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HttpTransport } from "../../pipeline/youtube/http-transport.js";
import { ExitPool } from "../../pipeline/youtube/exits/exit-pool.js";

let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server that resets the connection instead of answering the requests `reset` picks (by arrival number). */
async function start(reset: (arrival: number) => boolean): Promise<{ origin: string; arrivals: () => number; sockets: () => number }> {
  let arrivals = 0;
  let sockets = 0;
  server = http.createServer((req, res) => {
    arrivals++;
    if (reset(arrivals)) {
      req.socket.resetAndDestroy();
      return;
    }
    res.end(`answer ${arrivals}`);
  });
  server.on("connection", () => sockets++);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, arrivals: () => arrivals, sockets: () => sockets };
}

const transport = () => new HttpTransport({ exits: new ExitPool({ proxyUrls: [] }), timeoutMs: 5_000, maxBodyBytes: 1_000_000, userAgent: "test" });

describe("the keep-alive pool", () => {
  it("sends a request once more on a new connection when a kept-alive one is reset before answering", async () => {
    // The second request is reset before any answer: what an idle timeout racing the next request looks like.
    const upstream = await start((arrival) => arrival === 2);
    const client = transport();
    try {
      expect((await client.send({ method: "GET", url: `${upstream.origin}/a` })).body).toBe("answer 1");
      const second = await client.send({ method: "POST", url: `${upstream.origin}/b`, body: "{}" });
      expect(second.body).toBe("answer 3");
      expect(upstream.arrivals()).toBe(3);
      expect(upstream.sockets()).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  });

  it("fails with connection_failed when the new connection is reset too", async () => {
    const upstream = await start((arrival) => arrival >= 2);
    const client = transport();
    try {
      await client.send({ method: "GET", url: `${upstream.origin}/a` });
      await expect(client.send({ method: "GET", url: `${upstream.origin}/b` })).rejects.toMatchObject({ code: "connection_failed" });
      expect(upstream.arrivals()).toBe(3);
    } finally {
      await client.close();
    }
  });
});
