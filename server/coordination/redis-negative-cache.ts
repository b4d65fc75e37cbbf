/**
 * The negative cache in Redis (REDIS_URL): a "no transcript" answer one
 * replica got from YouTube is remembered for every replica, with the same TTL
 * as in memory (NEGATIVE_CACHE_SECONDS), so N replicas do not ask YouTube N
 * times for a video it keeps refusing. Redis unreachable or past its
 * deadline: a lookup counts as a miss and a failure is not remembered (the
 * cost is an upstream fetch, never a wrong answer).
 */
import type { Redis } from "ioredis";
import { languageKey } from "../../pipeline/artifact/contract/index.js";
import { NEGATIVE_CODES, PER_LANGUAGE_CODES } from "../live/negative-cache.js";
import type { Logger } from "../log.js";
import { shareYouTubeError, youTubeErrorFrom, type SharedNegativeCache, type SharedYouTubeError } from "../live/fetch-coordination.js";

export interface RedisNegativeCacheOptions {
  redis: Redis;
  prefix: string;
  /** How long an answer is remembered, in ms; 0 disables the cache. */
  ttlMs: number;
  log?: Logger;
  /** Told of each failed command (a missed deadline makes Redis count as down: redis-client.ts). */
  failed?: (error: unknown) => void;
}

export function createRedisNegativeCache(options: RedisNegativeCacheOptions): SharedNegativeCache {
  const { redis, prefix, ttlMs, log } = options;
  const failed = options.failed ?? (() => undefined);
  const videoKey = (videoId: string) => `${prefix}neg:${videoId}`;
  const languageKeyOf = (videoId: string, lang: string) => `${prefix}neg:${videoId}:${languageKey(lang)}`;
  return {
    async get(videoId, lang) {
      if (ttlMs === 0) return undefined;
      try {
        const [whole, perLanguage] = await redis.mget(videoKey(videoId), languageKeyOf(videoId, lang));
        const stored = whole ?? perLanguage;
        return stored ? youTubeErrorFrom(JSON.parse(stored) as SharedYouTubeError) : undefined;
      } catch (error) {
        failed(error);
        log?.warn("negative cache unavailable; fetching", { videoId, error: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
    },
    async remember(videoId, lang, error) {
      if (ttlMs === 0 || !NEGATIVE_CODES.has(error.code)) return false;
      const key = PER_LANGUAGE_CODES.has(error.code) ? languageKeyOf(videoId, lang) : videoKey(videoId);
      try {
        await redis.set(key, JSON.stringify(shareYouTubeError(error)), "PX", ttlMs);
        return true;
      } catch (error) {
        failed(error);
        return false;
      }
    },
  };
}
