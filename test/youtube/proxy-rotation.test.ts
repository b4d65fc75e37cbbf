import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BREAD } from "./helpers/records.js";
import { startForwardProxy, type ForwardProxy, type ProxyLogEntry } from "./helpers/forward-proxy.js";
import { startHarness, type StandinHarness } from "./helpers/setup.js";

let harness: StandinHarness;
let proxies: ForwardProxy[];
const log: ProxyLogEntry[] = [];

beforeAll(async () => {
  harness = await startHarness();
  proxies = await Promise.all(["p1", "p2", "p3"].map((name) => startForwardProxy(name, log)));
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await harness.standin.close();
});
beforeEach(() => {
  harness.standin.setFault(null);
  harness.standin.stats.reset();
  log.length = 0;
});

describe("proxy rotation", () => {
  it("sends each request through the next proxy, one connection per request", async () => {
    const before = proxies.map((p) => p.requests);
    const client = harness.client({ proxyUrls: proxies.map((p) => p.url) });
    const first = await client.fetchTranscript(BREAD.videoId, { languages: ["en"] });
    await client.fetchTranscript(BREAD.videoId, { languages: ["de"] });
    expect(first.usedProxy).toBe(true);
    // Six calls over three proxies, round-robin: two each, in order.
    expect(proxies.map((p, i) => p.requests - (before[i] ?? 0))).toEqual([2, 2, 2]);
    expect(log.map((e) => `${e.proxy} ${e.requestLine}`)).toEqual([
      "p1 GET /watch",
      "p2 POST /youtubei/v1/player",
      "p3 GET /api/timedtext",
      "p1 GET /watch",
      "p2 POST /youtubei/v1/player",
      "p3 GET /api/timedtext",
    ]);
  });

  it("recovers a blocked call through the next proxy", async () => {
    harness.standin.setFault({ kind: "bot-check", times: 1 });
    const client = harness.client({ proxyUrls: proxies.slice(0, 2).map((p) => p.url) });
    const result = await client.fetchTranscript(BREAD.videoId, { languages: ["en"] });
    expect(result.record.transcripts[0]?.languageCode).toBe("en");
    const playerCalls = log.filter((e) => e.requestLine.includes("/player")).map((e) => e.proxy);
    expect(playerCalls).toEqual(["p2", "p1"]);
    expect(harness.standin.stats.byEndpoint.player).toBe(2);
  });

  it("reports a dead proxy as connection_failed and marks the call as proxied", async () => {
    const client = harness.client({ proxyUrls: ["http://127.0.0.1:9"] });
    await expect(client.fetchTranscript(BREAD.videoId, { languages: ["en"] })).rejects.toMatchObject({
      code: "connection_failed",
      usedProxy: true,
    });
  });

  it("reports usedProxy false when no proxy is configured", async () => {
    const result = await harness.client().fetchTranscript(BREAD.videoId, { languages: ["en"] });
    expect(result.usedProxy).toBe(false);
  });
});
