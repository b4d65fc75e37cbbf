/**
 * What the negative cache keys an outcome under, in memory and in a real
 * Redis alike: a video's own outcomes for every language, `language_not_available`
 * for its language only, and `track_not_available` for its language and kind
 * only (`kindLanguage`), so a missing auto-generated track never hides the manual one.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { YouTubeError } from "../../pipeline/youtube/index.js";
import { negativeCacheOver, type SharedNegativeCache } from "../../server/live/fetch-coordination.js";
import { createRedisNegativeCache } from "../../server/coordination/redis-negative-cache.js";
import { kindLanguage, NegativeCache } from "../../server/live/negative-cache.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";

const available = await redisAvailable("the negative cache in Redis");
const prefix = `t_${randomBytes(6).toString("hex")}:`;
let redis: Redis | undefined;

afterAll(async () => {
  if (redis !== undefined) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
});

async function redisCache(): Promise<SharedNegativeCache> {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 500, commandTimeout: 500, retryStrategy: () => null });
  redis.on("error", () => undefined);
  if (redis.status !== "ready") await new Promise((resolve) => redis!.once("ready", resolve));
  return createRedisNegativeCache({ redis, prefix, ttlMs: 60_000 });
}

const caches: [string, () => Promise<SharedNegativeCache>, boolean][] = [
  ["in memory", async () => negativeCacheOver(new NegativeCache({ ttlMs: 60_000, maxEntries: 100 })), true],
  ["in Redis", redisCache, available],
];

describe.each(caches)("the negative cache %s", (_where, open, runs) => {
  it.skipIf(!runs)("keeps track_not_available to the language and kind, language_not_available to the language, the rest to the video", async () => {
    const cache = await open();
    const get = async (videoId: string, lang: string) => (await cache.get(videoId, lang))?.code;
    expect(await cache.remember("kindvideo01", kindLanguage("en", "generated"), new YouTubeError("track_not_available", "no auto-generated en"))).toBe(true);
    expect(await get("kindvideo01", kindLanguage("EN", "generated"))).toBe("track_not_available");
    expect(await get("kindvideo01", "en")).toBeUndefined();
    expect(await get("kindvideo01", kindLanguage("en", "manual"))).toBeUndefined();
    expect(await get("kindvideo01", kindLanguage("de", "generated"))).toBeUndefined();

    expect(await cache.remember("langvideo01", "de", new YouTubeError("language_not_available", "no de"))).toBe(true);
    expect(await get("langvideo01", "DE")).toBe("language_not_available");
    expect(await get("langvideo01", "en")).toBeUndefined();

    expect(await cache.remember("gonevideo01", "en", new YouTubeError("video_unavailable", "gone"))).toBe(true);
    expect(await get("gonevideo01", kindLanguage("fr", "manual"))).toBe("video_unavailable");
  });
});
