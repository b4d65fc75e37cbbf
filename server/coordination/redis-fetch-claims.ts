/**
 * Live-fetch claims in Redis (REDIS_URL): of the replicas (and workers) that
 * miss the same (video, language) at once, one fetches and the others wait
 * for its outcome, so YouTube is asked once across the service.
 *
 * A claim is `SET <prefix>claim:<key> <token> NX PX <ttl>`, renewed every
 * third of its TTL while the fetch runs; a replica killed mid-fetch stops
 * renewing, so the claim expires and a waiter claims the id itself. The
 * leader settles by writing the outcome under a key named by its token and
 * deleting the claim in one script; waiters poll both keys in one MGET: an
 * outcome means the fetch ended, a claim gone (or held by another token)
 * without an outcome means it was abandoned, and the waiter claims again.
 *
 * Redis unreachable or past its deadline: a claim that cannot be asked
 * makes this process the leader, and a waiter that cannot poll treats the
 * claim as abandoned. The cost is an extra upstream fetch, never a wrong
 * answer or a stuck request.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "../log.js";
import type { Claim, FetchClaims, FetchOutcome } from "../live/fetch-coordination.js";

/** KEYS[1]: the claim; ARGV: token, ttl ms. Returns {1, token} when taken, else {0, holder's token}. */
const TAKE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1, ARGV[1]} end
return {0, redis.call('GET', KEYS[1]) or ''}
`;

/** KEYS[1]: the claim; ARGV: token, ttl ms. Extends the claim while this token holds it. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** KEYS: the claim, the outcome; ARGV: token, outcome JSON, outcome ttl ms. Publishes the outcome and frees the claim. */
const SETTLE = `
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

export interface RedisFetchClaimsOptions {
  redis: Redis;
  prefix: string;
  /** How long a claim outlives the last renewal of its holder, in ms. */
  ttlMs: number;
  /** How often a waiter asks for the outcome, in ms. Default 100. */
  pollMs?: number;
  log?: Logger;
  /** Told of each failed command (a missed deadline makes Redis count as down: redis-client.ts). */
  failed?: (error: unknown) => void;
}

/** How long an outcome stays readable after its claim settled: long enough for every waiter's next poll. */
const OUTCOME_TTL_MS = 60_000;

export function createRedisFetchClaims(options: RedisFetchClaimsOptions): FetchClaims {
  const { redis, prefix, ttlMs, log } = options;
  const failed = options.failed ?? (() => undefined);
  const pollMs = options.pollMs ?? 100;
  // The flight key is `<videoId>\0<language key>`; Redis keys read better with a colon.
  const claimKey = (key: string) => `${prefix}claim:${key.replace("\u0000", ":")}`;
  const outcomeKey = (key: string, token: string) => `${claimKey(key)}:outcome:${token}`;
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

  const lead = (key: string, token: string): Claim => {
    const renewal = setInterval(() => {
      redis.eval(RENEW, 1, claimKey(key), token, ttlMs).then(
        (held) => {
          if (held === 0) log?.warn("live fetch claim lost before its fetch ended", { key: claimKey(key) });
        },
        failed,
      );
    }, Math.max(1, Math.floor(ttlMs / 3)));
    renewal.unref();
    let settled = false;
    return {
      role: "leader",
      settle(outcome) {
        if (settled) return;
        settled = true;
        clearInterval(renewal);
        // A lost settle is not lost work: the claim expires and a waiter claims again.
        redis.eval(SETTLE, 2, claimKey(key), outcomeKey(key, token), token, JSON.stringify(outcome), OUTCOME_TTL_MS).catch((error: unknown) => {
          failed(error);
          log?.warn("live fetch claim not settled in redis; it expires", { key: claimKey(key), error: message(error) });
        });
      },
    };
  };

  const follow = async (key: string, holder: string): Promise<FetchOutcome> => {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      let claimHolder: string | null | undefined;
      let outcome: string | null | undefined;
      try {
        [claimHolder, outcome] = await redis.mget(claimKey(key), outcomeKey(key, holder));
      } catch (error) {
        failed(error);
        log?.warn("live fetch claim unreadable; fetching", { key: claimKey(key), error: message(error) });
        return { kind: "abandoned" };
      }
      if (outcome !== null && outcome !== undefined) return JSON.parse(outcome) as FetchOutcome;
      // Expired (its holder died) or taken anew after an expiry: this holder's fetch will never settle here.
      if (claimHolder !== holder) return { kind: "abandoned" };
    }
  };

  return {
    async claim(key) {
      const token = randomBytes(12).toString("hex");
      let answer: [number, string];
      try {
        answer = (await redis.eval(TAKE, 1, claimKey(key), token, ttlMs)) as [number, string];
      } catch (error) {
        failed(error);
        log?.warn("live fetch claims unavailable; fetching without one", { key: claimKey(key), error: message(error) });
        return { role: "leader", settle: () => undefined };
      }
      const [taken, holder] = answer;
      if (taken === 1) return lead(key, token);
      return { role: "follower", outcome: follow(key, holder) };
    },
  };
}
