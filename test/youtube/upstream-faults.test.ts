import { describe, expect, it } from "vitest";
import { YouTubeError, type YouTubeClient } from "../../pipeline/youtube/index.js";
import { BREAD } from "./helpers/records.js";
import { useHarness, type StandinHarness } from "./helpers/setup.js";

let harness: StandinHarness;
let client: YouTubeClient;

useHarness((started) => {
  harness = started;
  client = started.client();
});

async function failure(run: Promise<unknown>): Promise<YouTubeError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(YouTubeError);
  return error as YouTubeError;
}

const fetchBread = (c: YouTubeClient = client) => c.fetchTranscript(BREAD.videoId, { languages: ["en"] });

describe("consent wall", () => {
  it("is passed by setting the CONSENT cookie and fetching the page again", async () => {
    harness.standin.setFault({ kind: "consent" });
    const result = await fetchBread();
    expect(result.record.transcripts[0]?.languageCode).toBe("en");
    expect(harness.standin.stats.byVideo[BREAD.videoId]).toEqual({ watch: 2, player: 1, timedtext: 1 });
  });

  it("fails with consent_failed when the consent page has no value", async () => {
    harness.standin.setFault({ kind: "consent", invalid: true });
    expect((await failure(fetchBread())).code).toBe("consent_failed");
  });

  it("fails with consent_failed when the page asks again despite the cookie, a block retried through the exits", async () => {
    harness.standin.setFault({ kind: "consent", ignoreCookie: true });
    const error = await failure(fetchBread(harness.client()));
    expect(error).toMatchObject({ code: "consent_failed", kind: "blocked" });
    // Each of the three attempts (one try, two blocked retries) asks twice: without and with the cookie.
    expect(harness.standin.stats.byEndpoint.watch).toBe(6);
  });
});

describe("blocked and rate-limited answers", () => {
  it("maps the captcha page to ip_blocked", async () => {
    harness.standin.setFault({ kind: "captcha" });
    const error = await failure(fetchBread(harness.client({ maxBlockedRetries: 0 })));
    expect(error.code).toBe("ip_blocked");
    expect(error.kind).toBe("blocked");
  });

  it("maps HTTP 429 to rate_limited, keeping Retry-After", async () => {
    harness.standin.setFault({ kind: "rate-limit", retryAfterSeconds: 120 });
    const error = await failure(fetchBread(harness.client({ maxBlockedRetries: 0 })));
    expect(error).toMatchObject({ code: "rate_limited", status: 429, retryAfterSeconds: 120 });
  });

  it("recovers when only the first N requests are refused", async () => {
    harness.standin.setFault({ kind: "rate-limit", times: 2 });
    const result = await fetchBread();
    expect(result.record.videoId).toBe(BREAD.videoId);
    expect(harness.standin.stats.byEndpoint.player).toBe(3);
    expect(harness.sleeps).toHaveLength(2);
  });

  it("never retries a permanent outcome", async () => {
    await failure(client.fetchTranscript("fixtureAGED", { languages: ["en"] }));
    expect(harness.standin.stats.byEndpoint.player).toBe(1);
    expect(harness.sleeps).toEqual([]);
  });

  it("rejects a malformed video id without any request", async () => {
    const error = await failure(client.fetchTranscript("not a video", { languages: ["en"] }));
    expect(error.code).toBe("invalid_video_id");
    expect(harness.standin.stats.total).toBe(0);
  });
});

describe("broken upstream responses", () => {
  it("gives upstream_timeout within the configured time", async () => {
    harness.standin.setFault({ kind: "slow", delayMs: 3_000, endpoint: "player" });
    const started = performance.now();
    const error = await failure(fetchBread(harness.client({ timeoutMs: 300 })));
    const elapsed = performance.now() - started;
    expect(error.code).toBe("upstream_timeout");
    expect(elapsed).toBeLessThan(1_500);
  });

  it("still answers normally when the upstream is slow but within the limit", async () => {
    harness.standin.setFault({ kind: "slow", delayMs: 100 });
    expect((await fetchBread()).record.videoId).toBe(BREAD.videoId);
  });

  it("maps truncated XML to upstream_unparsable", async () => {
    harness.standin.setFault({ kind: "truncated-xml" });
    expect((await failure(fetchBread())).code).toBe("upstream_unparsable");
  });

  it("maps malformed player JSON to upstream_unparsable", async () => {
    harness.standin.setFault({ kind: "malformed-json" });
    expect((await failure(fetchBread())).code).toBe("upstream_unparsable");
  });

  it("maps a 200 with an empty body to empty_transcript", async () => {
    harness.standin.setFault({ kind: "empty-body" });
    expect((await failure(fetchBread())).code).toBe("empty_transcript");
  });

  it("maps a 5xx to upstream_status with the status and does not retry it", async () => {
    harness.standin.setFault({ kind: "server-error", status: 503, endpoint: "timedtext" });
    const error = await failure(fetchBread());
    expect(error).toMatchObject({ code: "upstream_status", status: 503, kind: "transient" });
    expect(harness.standin.stats.byEndpoint.timedtext).toBe(1);
  });

  it("stops reading a huge body at the size cap instead of buffering it", async () => {
    harness.standin.setFault({ kind: "huge-body" });
    const maxBodyBytes = 2 * 1024 * 1024;
    const error = await failure(fetchBread(harness.client({ maxBodyBytes })));
    expect(error.code).toBe("upstream_too_large");
    // Socket buffers let some more through, but nowhere near the 100 MB on offer.
    expect(harness.standin.stats.hugeBodyBytesSent).toBeLessThan(20 * 1024 * 1024);
  });

  it("maps a body cut short of its Content-Length to connection_failed", async () => {
    harness.standin.setFault({ kind: "truncated-body", endpoint: "player" });
    expect((await failure(fetchBread())).code).toBe("connection_failed");
  });

  it("maps a connection reset mid-body to connection_failed", async () => {
    harness.standin.setFault({ kind: "connection-reset", endpoint: "watch" });
    expect((await failure(fetchBread())).code).toBe("connection_failed");
  });

  it("maps a refused connection to connection_failed", async () => {
    const dead = harness.client({ origin: "http://127.0.0.1:9" });
    expect((await failure(fetchBread(dead))).code).toBe("connection_failed");
  });

  it("stops at once when the caller aborts", async () => {
    harness.standin.setFault({ kind: "slow", delayMs: 3_000 });
    const controller = new AbortController();
    const run = client.fetchTranscript(BREAD.videoId, { languages: ["en"], signal: controller.signal });
    setTimeout(() => controller.abort(new Error("caller gave up")), 50);
    await expect(run).rejects.toThrow("caller gave up");
  });
});
