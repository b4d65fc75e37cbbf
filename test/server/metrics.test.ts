/**
 * GET /metrics over real servers: scraped after real requests, and the
 * exposition parsed by a small parser of the Prometheus text format written
 * here (not prom-client's), so the test reads what a scraper would.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startLiveServer, type LiveServer } from "../live/helpers/live-server.js";
import { startExitProxy, type ExitProxy } from "../../scripts/youtube-standin/exit-proxy.js";
import { closedPort } from "../helpers/closed-port.js";
import { call } from "./helpers/http.js";
import { roomInThisMinute } from "../helpers/rate-window.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  types: Map<string, string>;
  help: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

/** The Prometheus text format 0.0.4: # HELP / # TYPE lines and samples; throws on any line it cannot read. */
function parseExposition(text: string): Exposition {
  const out: Exposition = { types: new Map(), help: new Map(), samples: [] };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      (meta[1] === "TYPE" ? out.types : out.help).set(meta[2]!, meta[3]!);
      continue;
    }
    if (line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = match[2] ?? "";
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const start = LABEL.lastIndex;
      const label = LABEL.exec(body);
      if (!label) throw new Error(`bad labels at ${start}: ${line}`);
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    const raw = match[3]!;
    // As Prometheus reads values (Go's ParseFloat): NaN and Inf in any case.
    const special = raw.toLowerCase();
    const value = special === "+inf" || special === "inf" ? Infinity : special === "-inf" ? -Infinity : special === "nan" ? NaN : Number(raw);
    if (Number.isNaN(value) && special !== "nan") throw new Error(`bad value: ${line}`);
    out.samples.push({ name: match[1]!, labels, value });
  }
  return out;
}

function value(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length === 0) return undefined;
  return found.reduce((sum, s) => sum + s.value, 0);
}

async function scrape(baseUrl: string): Promise<{ exposition: Exposition; res: Response }> {
  const res = await fetch(`${baseUrl}/metrics`);
  const text = await res.text();
  return { exposition: parseExposition(text), res };
}

let artifacts: Artifacts;
let server: TestServer;
let quiet: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  [server, quiet] = await Promise.all([
    startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "3" } }),
    startTestServer({ artifacts, env: { METRICS: "off" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), quiet?.close()]);
  artifacts?.cleanup();
});

describe("/metrics", () => {
  test("answers without a key in the Prometheus text format, with the process defaults", async () => {
    const { exposition, res } = await scrape(server.baseUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(exposition.types.get("process_cpu_user_seconds_total")).toBe("counter");
    expect(value(exposition, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(exposition.types.get("nodejs_eventloop_lag_seconds")).toBe("gauge");
    expect(exposition.types.get("http_requests_total")).toBe("counter");
    expect(exposition.types.get("http_request_duration_seconds")).toBe("histogram");
    expect(value(exposition, "transcript_rate_limited_requests_total")).toBe(0);
  });

  test("counts requests by route template (never the raw path) and status, with latency histograms", async () => {
    const key = server.keyStore.create({ plan: "pro" }).key;
    const other = server.keyStore.create({ plan: "pro" }).key;
    expect((await call(server.baseUrl, "/v1/search?q=river", { key })).status).toBe(200);
    expect((await call(server.baseUrl, "/v1/transcript/zzzzzzzzzzz", { key })).status).toBe(404);
    expect((await call(server.baseUrl, "/v1/transcript/yyyyyyyyyyy", { key: other })).status).toBe(404);
    expect((await call(server.baseUrl, "/v1/stats", {})).status).toBe(401);
    expect((await call(server.baseUrl, "/no/such/thing", {})).status).toBe(404);
    expect((await call(server.baseUrl, "/v1/stats", { method: "DELETE", key })).status).toBe(405);
    const { exposition } = await scrape(server.baseUrl);
    const requests = (labels: Record<string, string>) => value(exposition, "http_requests_total", labels);
    expect(requests({ route: "/v1/search", method: "GET", status: "200" })).toBe(1);
    expect(requests({ route: "/v1/transcript/:videoId", method: "GET", status: "404" })).toBe(2);
    expect(requests({ route: "/v1/stats", method: "GET", status: "401" })).toBe(1);
    expect(requests({ route: "unmatched", method: "GET", status: "404" })).toBe(1);
    expect(requests({ route: "/v1/stats", method: "DELETE", status: "405" })).toBe(1);
    const routes = new Set(exposition.samples.filter((s) => s.name === "http_requests_total").map((s) => s.labels.route));
    for (const route of routes) expect(route).not.toMatch(/zzzz|yyyy|no\/such/);
    // Histograms: cumulative buckets ending in +Inf, which equals the count.
    for (const route of ["/v1/search", "/v1/transcript/:videoId"]) {
      const count = value(exposition, "http_request_duration_seconds_count", { route });
      expect(value(exposition, "http_request_duration_seconds_bucket", { route, le: "+Inf" })).toBe(count);
      expect(value(exposition, "http_request_duration_seconds_sum", { route })).toBeGreaterThan(0);
      const buckets = exposition.samples.filter((s) => s.name === "http_request_duration_seconds_bucket" && s.labels.route === route).map((s) => s.value);
      expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    }
    expect(value(exposition, "http_request_duration_seconds_count", { route: "/v1/transcript/:videoId" })).toBe(2);
  });

  test("counts rate-limited requests", async () => {
    // The five requests must fall in one clock minute for three to pass and two to be limited.
    await roomInThisMinute();
    const key = server.keyStore.create({ plan: "pro" }).key;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(server.baseUrl, "/v1/stats", { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const { exposition } = await scrape(server.baseUrl);
    expect(value(exposition, "transcript_rate_limited_requests_total")).toBe(2);
    expect(value(exposition, "http_requests_total", { route: "/v1/stats", status: "429" })).toBe(2);
  });

  test("names the served artifact set in an info gauge", async () => {
    const { exposition } = await scrape(server.baseUrl);
    const info = exposition.samples.filter((s) => s.name === "transcript_artifact_set_info");
    expect(info).toHaveLength(1);
    expect(info[0]!.value).toBe(1);
    expect(info[0]!.labels).toEqual({
      build_id: "current",
      dataset: "test",
      built_at: artifacts.manifest.builtAt,
      schema_version: String(artifacts.manifest.schemaVersion),
    });
  });

  test("counts its own scrapes under /metrics and answers other methods with 405", async () => {
    await scrape(server.baseUrl);
    const { exposition } = await scrape(server.baseUrl);
    expect(value(exposition, "http_requests_total", { route: "/metrics", status: "200" })).toBeGreaterThanOrEqual(1);
    const post = await call(server.baseUrl, "/metrics", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  test("counts the reference page and its files under routes of their own, leaving unmatched to 404s", async () => {
    const before = (await scrape(server.baseUrl)).exposition;
    for (const path of ["/docs", "/docs/", "/docs/assets/swagger-ui.css", "/docs/assets/docs-page.js"]) {
      const res = await fetch(`${server.baseUrl}${path}`);
      await res.arrayBuffer();
      expect(res.status, path).toBe(200);
    }
    expect((await call(server.baseUrl, "/docs/assets/nope.js")).status).toBe(404);
    const after = (await scrape(server.baseUrl)).exposition;
    const added = (labels: Record<string, string>) => (value(after, "http_requests_total", labels) ?? 0) - (value(before, "http_requests_total", labels) ?? 0);
    expect(added({ route: "/docs", method: "GET", status: "200" })).toBe(2);
    expect(added({ route: "/docs/assets/:file", method: "GET", status: "200" })).toBe(2);
    expect(added({ route: "unmatched", method: "GET", status: "404" })).toBe(1);
    expect(added({ route: "unmatched", status: "200" })).toBe(0);
  });

  test("is 404 with METRICS=off", async () => {
    const res = await call(quiet.baseUrl, "/metrics");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("route_not_found");
  });
});

describe("/metrics of a server with live fetching", () => {
  let live: LiveServer;
  beforeAll(async () => {
    live = await startLiveServer();
  });
  afterAll(async () => {
    await live?.close();
  });

  test("counts live fetches by outcome and upstream errors by kind", async () => {
    const get = (id: string) => call(live.baseUrl, `/v1/transcript/${id}`, { key: live.key });
    expect((await get("fresh000001")).status).toBe(200);
    expect((await get("fresh000001")).status).toBe(200); // stored now: no fetch
    expect((await get("notonyoutub")).status).toBe(404);
    expect((await get("notonyoutub")).status).toBe(404); // remembered
    const { exposition } = await scrape(live.baseUrl);
    expect(value(exposition, "transcript_live_fetches_total", { outcome: "stored" })).toBe(1);
    expect(value(exposition, "transcript_live_fetches_total", { outcome: "upstream_error" })).toBe(1);
    expect(value(exposition, "transcript_live_fetches_total", { outcome: "negative_cache" })).toBe(1);
    expect(value(exposition, "transcript_upstream_errors_total", { kind: "video_unavailable" })).toBe(1);
    const info = exposition.samples.find((s) => s.name === "transcript_artifact_set_info");
    // The published build's directory name under builds/.
    expect(info?.labels.build_id).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{6}$/);
    expect(info?.labels.dataset).toBe("live-test");
  });
});

describe("/metrics per YouTube exit", () => {
  let exit: ExitProxy;
  const servers: LiveServer[] = [];
  beforeAll(async () => {
    exit = await startExitProxy({ localAddress: "127.0.0.71" });
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await exit?.close();
  });

  test("counts requests, blocked answers and failures per exit, labelled without credentials, with each exit's state", async () => {
    const withUser = exit.url.replace("http://", "http://operator:pa55word@");
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const live = await startLiveServer({ env: { YOUTUBE_PROXY_URLS: `${withUser},${dead}`, YOUTUBE_EXIT_DEAD_AFTER: "1" } });
    servers.push(live);
    live.standin.setFault({ kind: "rate-limit", times: 1, retryAfterSeconds: 1 });
    const res = await call(live.baseUrl, "/v1/transcript/fresh000002", { key: live.key });
    expect(res.status).toBe(200);

    const { exposition, res: scraped } = await scrape(live.baseUrl);
    const text = await (await fetch(`${live.baseUrl}/metrics`)).text();
    expect(scraped.status).toBe(200);
    expect(text).not.toMatch(/pa55word|operator/);
    const good = exposition.samples.find((s) => s.name === "transcript_exit_requests_total" && s.labels.exit?.startsWith(exit.url))?.labels.exit;
    expect(good).toMatch(new RegExp(`^${exit.url.replace(/[.]/g, "\\.")}#user-[0-9a-f]{10}$`));
    // Every request the proxy carried was counted, one of them blocked (the 429); the down proxy failed and is out.
    expect(value(exposition, "transcript_exit_requests_total", { exit: good! })).toBe(exit.requests);
    expect(value(exposition, "transcript_exit_blocked_total", { exit: good! })).toBe(1);
    expect(value(exposition, "transcript_exit_failures_total", { exit: good! })).toBe(0);
    expect(value(exposition, "transcript_exit_failures_total", { exit: dead })).toBeGreaterThanOrEqual(1);
    expect(value(exposition, "transcript_exit_blocked_total", { exit: dead })).toBe(0);
    expect(value(exposition, "transcript_exit_state", { exit: dead, state: "dead" })).toBe(1);
    expect(value(exposition, "transcript_exit_state", { exit: dead, state: "ok" })).toBe(0);
    expect(exposition.types.get("transcript_exit_requests_total")).toBe("counter");
    expect(exposition.types.get("transcript_exit_state")).toBe("gauge");
  });
});
