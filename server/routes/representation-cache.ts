/**
 * Serialised representations of stored transcripts, so serving a stored
 * transcript again costs a map lookup instead of database reads, segment
 * decoding, serialisation and hashing. Keys include the catalog's version,
 * which changes with every new artifact set and live-store write, so an
 * entry can never outlive what it shows; bounded by bytes, least recently
 * used first out.
 */
import { Lru } from "../data/lru.js";
import { weakEtag } from "../http/etag.js";
import { RawJson, safeJson } from "../http/respond.js";

export interface CachedRepresentation {
  /** Weak ETag over `json`. */
  etag: string;
  /** `safeJson` of the representation (a JSON object), without per-request fields. */
  json: string;
}

export class RepresentationCache {
  readonly #lru: Lru<string, CachedRepresentation>;

  constructor(maxBytes: number) {
    // UTF-16 strings: two bytes a character, plus the key and entry overhead.
    this.#lru = new Lru(maxBytes, (entry) => entry.json.length * 2 + 256);
  }

  get(key: string): CachedRepresentation | undefined {
    return this.#lru.get(key);
  }

  /** Serialises `representation`, keeps it under `key` (when caching is on) and returns it. */
  put(key: string | undefined, representation: object): CachedRepresentation {
    const json = safeJson(representation);
    const entry = { json, etag: weakEtag(json) };
    if (key !== undefined) this.#lru.set(key, entry);
    return entry;
  }

  get bytes(): number {
    return this.#lru.weight;
  }
}

/** The cached object with extra fields appended (e.g. `timing`), as a body to send. */
export function withFields(entry: CachedRepresentation, fields: Record<string, unknown>): RawJson {
  const extra = safeJson(fields).slice(1, -1);
  return new RawJson(extra === "" ? entry.json : `${entry.json.slice(0, -1)},${extra}}`);
}
