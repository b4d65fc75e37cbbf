/**
 * The workers phase's wrk client (scripts/bench/wrk.ts): its Lua script, the
 * figures line it reads, and a real wrk run against a node:http server on
 * port 0 that counts what it was sent. The run skips with one line where wrk
 * is not installed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseWrkFigures, runWrk, wrkAvailable, wrkScript } from "../../scripts/bench/wrk.js";

describe("wrk script and figures", () => {
  it("quotes paths and the key as Lua strings", () => {
    const script = wrkScript(['/v1/search?q=%22a%22', 'a"b\\c'], 'k"1');
    expect(script).toContain('wrk.headers["x-api-key"] = "k\\"1"');
    expect(script).toContain('"/v1/search?q=%22a%22"');
    expect(script).toContain('"a\\"b\\\\c"');
  });

  it("reads the figures line, and refuses output without one", () => {
    const figures = parseWrkFigures("Running 1s test\nWRK_FIGURES 2000 2000000 1048576 12500 3 7\nRequests/sec: 999\n");
    expect(figures).toEqual({ requestsPerSecond: 1000, megabytesPerSecond: 0.5, p99Ms: 12.5, errors: 3, non2xx: 7 });
    expect(() => parseWrkFigures("Running 1s test\n")).toThrow("wrk wrote no figures");
  });
});

const installed = wrkAvailable();
if (!installed) console.log("skipped: a wrk run against a local server (no wrk command; install it with: sudo apt-get install wrk)");

describe.skipIf(!installed)("runWrk against a local server", () => {
  let server: Server;
  let origin: string;
  const seen = new Map<string, number>();
  let withoutKey = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.headers["x-api-key"] !== "secret") withoutKey++;
      seen.set(req.url!, (seen.get(req.url!) ?? 0) + 1);
      res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends every path in turn with the key, and counts what the server answered", async () => {
    const figures = await runWrk(origin, ["/a", "/b?q=x%20y", "/missing"], { apiKey: "secret", seconds: 1, connections: 2 });
    const total = [...seen.values()].reduce((sum, n) => sum + n, 0);
    expect([...seen.keys()].sort()).toEqual(["/a", "/b?q=x%20y", "/missing"]);
    expect(withoutKey).toBe(0);
    // Paths in turn: each within a few requests of a third (each connection's last request may be cut off).
    for (const n of seen.values()) expect(Math.abs(n - total / 3)).toBeLessThanOrEqual(4);
    // wrk counts the responses it read in its duration; the server may have answered a few more as it stopped.
    expect(figures.requestsPerSecond).toBeGreaterThan(100);
    expect(figures.requestsPerSecond).toBeLessThanOrEqual(total / 0.9);
    expect(figures.non2xx).toBeGreaterThan(0);
    expect(Math.abs(figures.non2xx - seen.get("/missing")!)).toBeLessThanOrEqual(4);
    expect(figures.errors).toBe(0);
    expect(figures.p99Ms).toBeGreaterThan(0);
  });
});
