/** Block detection on raw answers: each of YouTube's refusals, and the look-alikes that are not one. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classifyAnswer, retryAfter } from "../../pipeline/youtube/exits/classify-answer.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/youtube/${name}`, import.meta.url), "utf8");
const origin = "http://127.0.0.1:4001";
const answer = (path: string, status: number, body: string, headers: Record<string, string> = {}, requestHeaders?: Record<string, string>) =>
  classifyAnswer({ url: `${origin}${path}`, status, body, headers, ...(requestHeaders ? { requestHeaders } : {}) }, Date.UTC(2026, 0, 1));

describe("classifyAnswer", () => {
  it("calls a 429 rate_limited, with Retry-After in seconds or as a date", () => {
    expect(answer("/watch?v=x", 429, "", { "retry-after": "7" })).toMatchObject({ code: "rate_limited", retryAfterMs: 7_000, status: 429 });
    expect(answer("/youtubei/v1/player", 429, "")).not.toHaveProperty("retryAfterMs");
    expect(retryAfter("Thu, 01 Jan 2026 00:00:30 GMT", Date.UTC(2026, 0, 1))).toBe(30_000);
  });

  it("calls the redirect to Google's /sorry/ page and the unusual-traffic page ip_blocked", () => {
    expect(answer("/watch?v=x", 302, "", { location: "https://www.google.com/sorry/index?continue=x" })?.code).toBe("ip_blocked");
    expect(answer("/watch?v=x", 200, "<p>Our systems have detected unusual traffic from your computer network.</p>")?.code).toBe("ip_blocked");
    expect(answer("/watch?v=x", 302, "", { location: "https://www.youtube.com/watch?v=y" })).toBeUndefined();
  });

  it("calls the captcha page ip_blocked, but not a watch page that has an API key", () => {
    expect(answer("/watch?v=x", 200, fixture("captcha.html"))?.code).toBe("ip_blocked");
    expect(answer("/watch?v=x", 200, fixture("watch.html"))).toBeUndefined();
  });

  it("calls the player's bot check request_blocked, not an age restriction", () => {
    expect(answer("/youtubei/v1/player?key=k", 200, fixture("player-bot-check.json"))?.code).toBe("request_blocked");
    expect(answer("/youtubei/v1/player?key=k", 200, fixture("player-age-restricted.json"))).toBeUndefined();
    expect(answer("/youtubei/v1/player?key=k", 200, fixture("player-ok.json"))).toBeUndefined();
  });

  it("calls an empty caption body a block, not a caption document", () => {
    expect(answer("/api/timedtext?v=x&lang=en", 200, " ")?.code).toBe("empty_transcript");
    expect(answer("/api/timedtext?v=x&lang=en", 200, fixture("transcript.xml"))).toBeUndefined();
  });

  it("calls the consent wall a block only when the request already carried the consent cookie", () => {
    expect(answer("/watch?v=x", 200, fixture("consent.html"))).toBeUndefined();
    expect(answer("/watch?v=x", 200, fixture("consent.html"), {}, { cookie: "CONSENT=YES+cb" })?.code).toBe("consent_failed");
  });
});
