/**
 * What the processes serving one service share about live fetches, as
 * interfaces: the claim that makes one process of many the one that fetches a
 * missing (video, language) while the others wait for its outcome, and the
 * negative cache. One process uses `localFetchCoordination` (its own
 * single-flight already makes one fetch; nothing to share); the workers of one
 * machine use the primary over IPC (server/cluster/); replicas on several
 * machines use a shared store that implements the same interfaces.
 */
import { YouTubeError, type YouTubeErrorCode } from "../../pipeline/youtube/index.js";
import { NegativeCache, type NegativeCacheOptions } from "./negative-cache.js";

/** A YouTubeError as plain data, so it can cross a process boundary. */
export interface SharedYouTubeError {
  code: YouTubeErrorCode;
  message: string;
  status?: number;
  retryAfterSeconds?: number;
  reason?: string;
  subreasons?: string[];
  availableLanguages?: YouTubeError["availableLanguages"];
  usedProxy?: boolean;
}

/** How the one fetch of a claim ended. `abandoned`: the fetcher stopped or died; a waiter claims again. */
export type FetchOutcome =
  /** `seq`: the record's number in the shared live store (DATABASE_URL), for a waiter to read it once mirrored. */
  | { kind: "stored"; method: string; usedProxy: boolean; seq?: number }
  | { kind: "failed"; error: SharedYouTubeError } | { kind: "abandoned" };

export type Claim =
  /** This process fetches; it must settle the claim once, whatever happens. */
  | { role: "leader"; settle(outcome: FetchOutcome): void }
  /** Another process fetches; `outcome` says how it ended. */
  | { role: "follower"; outcome: Promise<FetchOutcome> };

export interface FetchClaims {
  /** Claims the fetch of `key` (video and language key) or joins the process that has it. */
  claim(key: string): Promise<Claim>;
}

export interface SharedNegativeCache {
  /** The remembered failure for this video and language, if any is still fresh (at once when it is in this process's memory). */
  get(videoId: string, lang: string): YouTubeError | undefined | Promise<YouTubeError | undefined>;
  /** Remembers `error` when it is an outcome worth remembering; resolves with whether it did. */
  remember(videoId: string, lang: string, error: YouTubeError): Promise<boolean>;
}

export interface FetchCoordination {
  claims: FetchClaims;
  negative: SharedNegativeCache;
}

/** Claims of one process: every claim is its own (its single-flight already joins its callers). */
export const localClaims: FetchClaims = { claim: async () => ({ role: "leader", settle: () => undefined }) };

/** One process: its own claims; the negative cache in memory. */
export function localFetchCoordination(options: NegativeCacheOptions): FetchCoordination {
  return { claims: localClaims, negative: negativeCacheOver(new NegativeCache(options)) };
}

/** The shared-cache interface over a NegativeCache in this process's memory. */
export function negativeCacheOver(cache: NegativeCache): SharedNegativeCache {
  return {
    // Not async: a miss then joins or queues its fetch in the same tick, as it always has in one process.
    get: (videoId, lang) => cache.get(videoId, lang),
    remember: async (videoId, lang, error) => cache.remember(videoId, lang, error),
  };
}

export function shareYouTubeError(error: YouTubeError): SharedYouTubeError {
  const shared: SharedYouTubeError = { code: error.code, message: error.message };
  if (error.status !== undefined) shared.status = error.status;
  if (error.retryAfterSeconds !== undefined) shared.retryAfterSeconds = error.retryAfterSeconds;
  if (error.reason !== undefined) shared.reason = error.reason;
  if (error.subreasons !== undefined) shared.subreasons = error.subreasons;
  if (error.availableLanguages !== undefined) shared.availableLanguages = error.availableLanguages;
  if (error.usedProxy !== undefined) shared.usedProxy = error.usedProxy;
  return shared;
}

export function youTubeErrorFrom(shared: SharedYouTubeError): YouTubeError {
  const { code, message, ...details } = shared;
  return new YouTubeError(code, message, details);
}

/**
 * The shared coordination while `usable()` (Redis is up), else `local` (this
 * process's, or the cluster primary's): an unreachable Redis costs at most an
 * extra upstream fetch per replica, and asks nothing of Redis meanwhile.
 */
export function fallbackCoordination(shared: FetchCoordination, local: FetchCoordination, usable: () => boolean): FetchCoordination {
  return {
    claims: { claim: (key) => (usable() ? shared.claims : local.claims).claim(key) },
    negative: {
      get: (videoId, lang) => (usable() ? shared.negative : local.negative).get(videoId, lang),
      remember: (videoId, lang, error) => (usable() ? shared.negative : local.negative).remember(videoId, lang, error),
    },
  };
}
