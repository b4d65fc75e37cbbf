/**
 * One memory budget for search, and the helpers that spend it or speed up
 * reading, each of which can be switched off on its own for measurement
 * (docs/search-memory.md, "The memory budget").
 */

/**
 * The memory helpers (their names are listed with the settings,
 * settings/rows.ts):
 * - `index`: the full-text index in its own page cache (index-memory.ts);
 * - `pairs`: the phrase-pair index's longest lists in that cache too;
 * - `texts`: the most viewed transcripts' text (hot-transcripts.ts);
 * - `terms`: the term counts of the first of those texts (term-vectors.ts);
 * - `counts`: the build's term counts of every transcript (stored-term-counts.ts);
 * - `prefetch`: worker threads reading ahead a query's texts (text-prefetch.ts);
 * - `videos`: the videos table touched once, so its mapped pages stay mapped;
 * - `warmup`: searches run once at start (search-warmup.ts).
 */
export { MEMORY_HELPERS, type MemoryHelper } from "../../../settings/rows.js";
import type { MemoryHelper } from "../../../settings/rows.js";

/**
 * The budget's shares, in 46ths: the full-text index 32, the phrase-pair
 * lists 2, the most viewed texts 7, their term counts 1, the build's term
 * counts 4. A share is a
 * ceiling: an index smaller than its share holds only what it has, and the
 * texts' timings go into what it left (search-memory.ts).
 */
const SHARES = { index: 32, pairs: 2, texts: 7, terms: 1, counts: 4 } as const;
const SHARE_PARTS = SHARES.index + SHARES.pairs + SHARES.texts + SHARES.terms + SHARES.counts;

/** Worker threads of `prefetch`: the reads are I/O-bound, so more than the cores. */
export const READ_THREADS = 4;

/** What the catalog is given (server/artifact-set/artifact-catalog.ts, CatalogOptions). */
export interface MemoryOptions {
  indexBytes: number;
  pairBytes: number;
  hotTextBytes: number;
  termVectorBytes: number;
  termCountBytes: number;
  readThreads: number;
  touchVideos: boolean;
  warmSearches: boolean;
}

/** The budget (bytes) split among the helpers that hold memory, with those switched off given none. */
export function memoryOptions(budgetBytes: number, helpers: readonly MemoryHelper[]): MemoryOptions {
  const on = new Set(helpers);
  const share = (helper: keyof typeof SHARES) => (on.has(helper) ? Math.floor((budgetBytes * SHARES[helper]) / SHARE_PARTS) : 0);
  return {
    indexBytes: share("index"),
    // The pair lists live in the index's page cache: without it they have nowhere to go.
    pairBytes: on.has("index") ? share("pairs") : 0,
    hotTextBytes: share("texts"),
    // The term counts are made of the texts held: without them there are none.
    termVectorBytes: on.has("texts") ? share("terms") : 0,
    termCountBytes: share("counts"),
    readThreads: on.has("prefetch") ? READ_THREADS : 0,
    touchVideos: on.has("videos"),
    warmSearches: on.has("warmup"),
  };
}
