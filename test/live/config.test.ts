/** The live-fetch settings: defaults, parsing, and messages that name the variable without repeating its value. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";

describe("live-fetch settings", () => {
  it("default to youtube.com, no proxies, live fetch on, 8 slots, 200 waiting, 1 h negative cache of 10000", () => {
    expect(loadConfig({})).toMatchObject({
      youtubeOrigin: "https://www.youtube.com",
      youtubeProxyUrls: [],
      youtubeTimeoutMs: 10000,
      youtubeMaxBlockedRetries: 2,
      liveFetch: true,
      liveFetchConcurrency: 8,
      liveFetchQueue: 200,
      negativeCacheSeconds: 3600,
      negativeCacheSize: 10000,
    });
  });

  it("parse a proxy list with spaces and empty entries, an origin with a trailing slash, and LIVE_FETCH=off", () => {
    const config = loadConfig({
      YOUTUBE_PROXY_URLS: " http://a:1 ,, https://user:pw@b:2 ",
      YOUTUBE_ORIGIN: "http://127.0.0.1:4001/",
      LIVE_FETCH: "off",
    });
    expect(config.youtubeProxyUrls).toEqual(["http://a:1", "https://user:pw@b:2"]);
    expect(config.youtubeOrigin).toBe("http://127.0.0.1:4001");
    expect(config.liveFetch).toBe(false);
  });

  it.each([
    [{ YOUTUBE_ORIGIN: "https://www.youtube.com/watch" }, "YOUTUBE_ORIGIN: must be an http(s) scheme and host only"],
    [{ YOUTUBE_ORIGIN: "ftp://example.com" }, "YOUTUBE_ORIGIN: must be an http(s) scheme and host only"],
    [{ YOUTUBE_PROXY_URLS: "http://ok:1,socks5://secret-proxy:9" }, "YOUTUBE_PROXY_URLS: must list http(s) URLs"],
    [{ YOUTUBE_TIMEOUT_MS: "50" }, "YOUTUBE_TIMEOUT_MS: must be at least 100"],
    [{ YOUTUBE_MAX_BLOCKED_RETRIES: "11" }, "YOUTUBE_MAX_BLOCKED_RETRIES: must be at most 10"],
    [{ LIVE_FETCH: "sometimes" }, "LIVE_FETCH: must be on or off"],
    [{ LIVE_FETCH_CONCURRENCY: "0" }, "LIVE_FETCH_CONCURRENCY: must be at least 1"],
    [{ LIVE_FETCH_QUEUE: "-1" }, "LIVE_FETCH_QUEUE: must be a whole number"],
    [{ NEGATIVE_CACHE_SECONDS: "604801" }, "NEGATIVE_CACHE_SECONDS: must be at most 604800"],
    [{ NEGATIVE_CACHE_SIZE: "0" }, "NEGATIVE_CACHE_SIZE: must be at least 1"],
  ])("refuse %j, naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
    expect(() => loadConfig(env)).not.toThrow(/secret-proxy/);
  });
});
