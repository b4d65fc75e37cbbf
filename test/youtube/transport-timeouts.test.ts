/**
 * A call's time limit is the transport's own timer, but undici's header and
 * body limits are set to the same time and its coarse timers can fire a
 * moment first: whichever fires, the caller sees `upstream_timeout`, never
 * `connection_failed`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { HttpTransport, isUndiciTimeout } from "../../pipeline/youtube/http-transport.js";
import { ExitPool } from "../../pipeline/youtube/exits/exit-pool.js";
import { YouTubeError } from "../../pipeline/youtube/errors.js";

let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server that sends its headers after `headersAfterMs` and then the body after `bodyAfterMs` more (never, for Infinity). */
async function start(headersAfterMs: number, bodyAfterMs: number): Promise<string> {
  server = http.createServer((_req, res) => {
    if (!Number.isFinite(headersAfterMs)) return;
    setTimeout(() => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.flushHeaders();
      if (Number.isFinite(bodyAfterMs)) setTimeout(() => res.end("late"), bodyAfterMs);
    }, headersAfterMs);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the request to fail"),
    (error: unknown) => error,
  );
}

describe("undici's own timeouts", () => {
  it("are told from a reset connection by their codes", async () => {
    const silent = await start(Infinity, Infinity);
    const headers = await rejection(request(`${silent}/`, { headersTimeout: 100 }));
    expect((headers as { code?: string }).code).toBe("UND_ERR_HEADERS_TIMEOUT");
    expect(isUndiciTimeout(headers)).toBe(true);
    server!.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));

    const stalled = await start(0, Infinity);
    const body = await rejection(request(`${stalled}/`, { bodyTimeout: 100 }).then((res) => res.body.text()));
    expect((body as { code?: string }).code).toBe("UND_ERR_BODY_TIMEOUT");
    expect(isUndiciTimeout(body)).toBe(true);

    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(isUndiciTimeout(reset)).toBe(false);
    expect(isUndiciTimeout(undefined)).toBe(false);
  });

  it("a call that gets no answer within timeoutMs fails with upstream_timeout", async () => {
    const silent = await start(Infinity, Infinity);
    const transport = new HttpTransport({ exits: new ExitPool({ proxyUrls: [] }), timeoutMs: 200, maxBodyBytes: 1_000, userAgent: "test" });
    try {
      const error = await rejection(transport.send({ method: "GET", url: `${silent}/watch` }));
      expect(error).toBeInstanceOf(YouTubeError);
      expect((error as YouTubeError).code).toBe("upstream_timeout");
    } finally {
      await transport.close();
    }
  });
});
