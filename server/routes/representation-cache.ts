/**
 * Serialised representations of stored transcripts, kept as UTF-8 bytes, so
 * serving a stored transcript again costs a map lookup and a socket write
 * instead of database reads, segment decoding, serialisation, encoding and
 * hashing. Keys include the catalog's version,
 * which changes with every new artifact set and live-store write, so an
 * entry can never outlive what it shows; bounded by bytes, least recently
 * used first out.
 */
import { languageKey, type TrackKind } from "../../pipeline/artifact/contract/index.js";
import { Lru } from "../data/lru.js";
import { weakEtag } from "../http/etag.js";
import { RawJson, safeJson } from "../http/respond.js";

export interface CachedRepresentation {
  /** Weak ETag over `bytes`. */
  etag: string;
  /** UTF-8 of `safeJson` of the representation (a JSON object), without per-request fields; or the text of a non-JSON one. */
  bytes: Buffer;
  /** Set for a non-JSON representation (`putText`), with the headers that go with it (Content-Disposition). */
  text?: { contentType: string; headers: Record<string, string> };
}

/** What a cached representation shows: the transcript asked for, and the form it is in (a format, or JSON with or without metadata; `bulk` for a bulk item). */
export interface RepresentationKey {
  videoId: string;
  lang: string;
  track: TrackKind;
  variant: string;
}

/** The cache key of a representation under the catalog's `version`: one function, so no route can leave a field out. */
export function representationKey(version: string, { videoId, lang, track, variant }: RepresentationKey): string {
  return `${version}\u0000${videoId}\u0000${languageKey(lang)}\u0000${track}\u0000${variant}`;
}

export class RepresentationCache {
  readonly #lru: Lru<string, CachedRepresentation>;

  constructor(maxBytes: number) {
    // The bytes, plus the key and entry overhead.
    this.#lru = new Lru(maxBytes, (entry) => entry.bytes.length + 256);
  }

  get(key: string): CachedRepresentation | undefined {
    return this.#lru.get(key);
  }

  /** Serialises `representation`, keeps it under `key` (when caching is on) and returns it. */
  put(key: string | undefined, representation: object): CachedRepresentation {
    const bytes = Buffer.from(safeJson(representation), "utf8");
    const entry = { bytes, etag: weakEtag(bytes) };
    if (key !== undefined) this.#lru.set(key, entry);
    return entry;
  }

  /** A non-JSON representation (SRT, WebVTT, plain text), kept like `put`'s. */
  putText(key: string | undefined, body: string, text: NonNullable<CachedRepresentation["text"]>): CachedRepresentation {
    const bytes = Buffer.from(body, "utf8");
    const entry = { bytes, etag: weakEtag(bytes), text };
    if (key !== undefined) this.#lru.set(key, entry);
    return entry;
  }

  get bytes(): number {
    return this.#lru.weight;
  }
}

/** The cached object with extra fields appended (e.g. `timing`), as a body to send: the cached bytes are not copied. */
export function withFields(entry: CachedRepresentation, fields: Record<string, unknown>): RawJson {
  const extra = safeJson(fields).slice(1, -1);
  return extra === "" ? new RawJson(entry.bytes) : new RawJson(entry.bytes.subarray(0, -1), `,${extra}}`);
}

/** withFields(entry, { timing: { totalMs } }), written directly: most stored transcripts are served with nothing else appended. */
export function withTiming(entry: CachedRepresentation, totalMs: number): RawJson {
  return new RawJson(entry.bytes.subarray(0, -1), `,"timing":{"totalMs":${JSON.stringify(totalMs)}}}`);
}
