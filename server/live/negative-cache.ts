/**
 * Remembers "this video has no transcript" answers for a while, so a hot id
 * that YouTube will keep refusing costs one upstream fetch per `ttlMs`, not
 * one per request. Bounded: the least recently used entries go first.
 *
 * Most outcomes hold for the whole video (unavailable, no captions at all,
 * unplayable, age restricted); `language_not_available` holds for one
 * language only, so a request for another language still goes upstream;
 * `track_not_available` for one language and kind of track, which callers
 * pass as the language (`kindLanguage`), so every cache keys it as it keys a language.
 */
import { languageKey, type TrackKind } from "../../pipeline/artifact/contract/index.js";
import type { YouTubeError, YouTubeErrorCode } from "../../pipeline/youtube/index.js";
import { Lru } from "../data/lru.js";

/** Outcomes worth remembering: asking again soon would get the same answer. */
export const NEGATIVE_CODES: ReadonlySet<YouTubeErrorCode> = new Set([
  "video_unavailable",
  "transcripts_disabled",
  "language_not_available",
  "track_not_available",
  "unplayable",
  "age_restricted",
]);

/** Outcomes that hold for the language asked for only (or the language and kind, see `kindLanguage`), not the whole video. */
export const PER_LANGUAGE_CODES: ReadonlySet<YouTubeErrorCode> = new Set(["language_not_available", "track_not_available"]);

/** The "language" a kind-specific outcome (`track_not_available`) is remembered under: the language and the kind in one key. */
export function kindLanguage(lang: string, track: Exclude<TrackKind, "any">): string {
  return `${lang}\u0000${track}`;
}

export interface NegativeCacheOptions {
  /** How long an answer is remembered, in ms; 0 disables the cache. */
  ttlMs: number;
  /** Most entries kept. */
  maxEntries: number;
  /** Milliseconds since the epoch. Default Date.now. */
  now?: () => number;
}

interface Entry {
  error: YouTubeError;
  expiresAt: number;
}

export class NegativeCache {
  readonly #entries: Lru<string, Entry>;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: NegativeCacheOptions) {
    this.#entries = new Lru(options.maxEntries);
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
  }

  /** The remembered failure for this video and language, if any is still fresh. */
  get(videoId: string, lang: string): YouTubeError | undefined {
    return this.#fresh(videoId) ?? this.#fresh(perLanguageKey(videoId, lang));
  }

  /** Remembers `error` when it is one of the outcomes worth remembering; returns whether it did. */
  remember(videoId: string, lang: string, error: YouTubeError): boolean {
    if (this.#ttlMs === 0 || !NEGATIVE_CODES.has(error.code)) return false;
    const key = PER_LANGUAGE_CODES.has(error.code) ? perLanguageKey(videoId, lang) : videoId;
    this.#entries.set(key, { error, expiresAt: this.#now() + this.#ttlMs });
    return true;
  }

  get size(): number {
    return this.#entries.size;
  }

  #fresh(key: string): YouTubeError | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Expired entries are left for the LRU to push out; overwritten on the next miss.
    return entry.expiresAt > this.#now() ? entry.error : undefined;
  }
}

/** One entry per language however the request spells it (`DE` and `de`). */
function perLanguageKey(videoId: string, lang: string): string {
  return `${videoId}\u0000${languageKey(lang)}`;
}
