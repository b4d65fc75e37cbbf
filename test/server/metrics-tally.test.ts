/**
 * The request counts and latencies are tallied in plain maps and handed to
 * prom-client at each scrape: their exposition is the same as prom-client's
 * own Counter and Histogram given the same requests one by one, scrape after
 * scrape.
 */
import { describe, expect, it } from "vitest";
import { Counter, Histogram, Registry } from "prom-client";
import { createMetrics, LATENCY_BUCKETS } from "../../server/metrics/metrics.js";

function reference() {
  const registry = new Registry();
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by route template, method and status (aborted: the client left before the answer).",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by route template.",
    labelNames: ["route"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return {
    request(route: string, method: string, status: string, seconds: number) {
      requests.inc({ route, method, status });
      latency.observe({ route }, seconds);
    },
    render: () => registry.metrics(),
  };
}

/** The request metrics' lines of an exposition. */
function requestLines(text: string): string {
  return text
    .split("\n")
    .filter((line) => /^(# (HELP|TYPE) )?http_request/.test(line))
    .join("\n");
}

describe("the request metrics", () => {
  it("expose what prom-client's own counter and histogram would, at every scrape", async () => {
    const tallied = createMetrics(() => undefined);
    const own = reference();
    let x = 11;
    const both = (route: string, method: string, status: string, seconds: number) => {
      tallied.request(route, method, status, seconds);
      own.request(route, method, status, seconds);
    };
    for (let i = 0; i < 3000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      // Latencies on and between the bucket bounds, and past the last one.
      const seconds = i % 7 === 0 ? LATENCY_BUCKETS[i % LATENCY_BUCKETS.length]! : ((x >> 8) % 40_000) / 1000;
      both(["/v1/transcript/:videoId", "/v1/search", "unmatched"][x % 3]!, i % 5 === 0 ? "HEAD" : "GET", ["200", "404", "aborted"][(x >> 4) % 3]!, seconds);
    }
    const first = requestLines((await tallied.render()).text);
    expect(first).toContain('http_request_duration_seconds_bucket{le="+Inf",route="/v1/search"}');
    expect(first).toBe(requestLines(await own.render()));
    for (let i = 0; i < 50; i++) both("/v1/stats", "GET", "429", 0.0005 * i);
    expect(requestLines((await tallied.render()).text)).toBe(requestLines(await own.render()));
    expect(requestLines((await tallied.render()).text)).toBe(requestLines(await own.render()));
  });
});
