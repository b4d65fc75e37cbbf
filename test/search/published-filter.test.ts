/**
 * The date filters (publishedAfter, publishedBefore) over a real artifact set
 * and a live store beside it: every page of a filtered search holds exactly
 * the unfiltered matches published in the range, bounds inclusive, through
 * the row bitmap of a narrow range and the joined rows of a wide one; a
 * video whose date is unknown is never in a filtered search; the build
 * indexes the dates, so a narrow range reads only its own rows.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACT_FILES, type VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { UNKNOWN_PUBLISHED_AT } from "../../pipeline/youtube/video-record.js";
import { buildQuerySet } from "../../scripts/bench/query-set.js";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import type { SearchParams } from "../../server/data/catalog.js";
import { LiveStore } from "../../server/live-store/live-store.js";
import { SearchQuery } from "../../server/routes/search.js";
import { bindFilters } from "../../server/search/filters.js";
import { rankOrderedMatches } from "../../server/search/match/match-list.js";
import { ROW_BITMAP_MAX_SHARE, rowBitmap } from "../../server/search/match/row-bitmap.js";
import { parseSearchQuery } from "../../server/search/query.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

const UNKNOWN = new Date(UNKNOWN_PUBLISHED_AT).toISOString();

/** A copy of `record` under another id, published on an unknown date. */
function undated(record: VideoRecord, n: number): VideoRecord {
  return { ...record, videoId: `undated${String(n).padStart(4, "0")}`, publishedAt: UNKNOWN_PUBLISHED_AT };
}

let set: TempArtifacts;
let liveDir: string;
let live: LiveStore;
let catalog: ArtifactCatalog;
let queries: string[];
/** Every searchable video's stored date, by id, from both shards. */
const published = new Map<string, string>();
/** The stored dates, ascending, without the unknown one. */
let dates: string[];

beforeAll(async () => {
  const corpus = createSyntheticCorpus({ seed: 71, videos: 600, channels: 8, meanTranscriptWords: 250 });
  const records = Array.from({ length: corpus.videoCount }, (_, i) => corpus.videoAt(i));
  set = await buildTempArtifacts([...records, ...records.slice(0, 6).map((r, i) => undated(r, i))]);
  liveDir = mkdtempSync(join(tmpdir(), "ts-published-live-"));
  live = LiveStore.open(join(liveDir, "live.db"));
  catalog = openCatalog({ dir: set.dir, live });
  // The word bitmaps and the rest of search's memory, so the filters go through every path a served search takes.
  await catalog.warm();
  const later = createSyntheticCorpus({ seed: 72, videos: 60, channels: 3, meanTranscriptWords: 250, referenceDate: "2031-06-01T00:00:00Z" });
  const fetched = Array.from({ length: later.videoCount }, (_, i) => later.videoAt(i));
  for (const record of [...fetched, ...fetched.slice(0, 3).map((r, i) => undated(r, 100 + i))]) catalog.storeLive(record);
  for (const db of [new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true }), live.db]) {
    for (const [id, at] of db.prepare("SELECT video_id, published_at FROM videos").raw().all() as [string, string][]) published.set(id, at);
  }
  dates = [...new Set(published.values())].filter((d) => d !== UNKNOWN).sort();
  queries = [...new Set(buildQuerySet(join(set.dir, ARTIFACT_FILES.database), 60, 11).map((q) => q.q))];
}, 120_000);
afterAll(() => {
  catalog?.close();
  live?.close();
  set?.cleanup();
  if (liveDir) rmSync(liveDir, { recursive: true, force: true });
});

/** The validated search of `q` with the REST query's own schema (so the dates are bounds as the routes pass them). */
function params(q: string, filters: Record<string, string> = {}): SearchParams {
  return SearchQuery.parse({ q, limit: "100", ...filters });
}

/** Every match of a search, page after page, in order. */
function allMatches(p: SearchParams): { ids: string[]; total: number; totalExact: boolean } {
  const ids: string[] = [];
  let first: { total: number; totalExact: boolean } | undefined;
  for (let offset = 0; ; offset += p.limit) {
    const page = catalog.search({ ...p, offset });
    first ??= page;
    ids.push(...page.results.map((r) => r.videoId));
    if (!page.hasMore) break;
  }
  return { ids, ...first! };
}

describe("publishedAfter and publishedBefore", () => {
  it("list exactly the unfiltered matches published in the range, bounds inclusive, narrow or wide, in both shards", () => {
    const at = (share: number) => dates[Math.min(dates.length - 1, Math.floor(share * dates.length))]!;
    const ranges: Record<string, string>[] = [
      // Narrow ranges (a row bitmap, its rows looked up one by one or the list walked through it), given as
      // the instants of two stored dates: both are in it.
      { publishedAfter: at(0.5), publishedBefore: at(0.502) },
      { publishedAfter: at(0.5), publishedBefore: at(0.52) },
      { publishedAfter: at(0.6), publishedBefore: at(0.68) },
      // Wide ones (the video row joined), open at either end, as dates and as date-times with an offset.
      { publishedAfter: at(0.3).slice(0, 10) },
      { publishedBefore: at(0.6).slice(0, 10) },
      { publishedAfter: at(0.2), publishedBefore: at(0.9).replace("Z", "+00:00") },
      // The live store's later uploads only.
      { publishedAfter: "2031-01-01" },
    ];
    let compared = 0;
    let fromLive = 0;
    for (const range of ranges) {
      const bounds = SearchQuery.parse({ q: "x", ...range });
      const inRange = (id: string) => {
        const date = published.get(id)!;
        return date !== UNKNOWN && (bounds.publishedAfter === undefined || date >= bounds.publishedAfter) && (bounds.publishedBefore === undefined || date <= bounds.publishedBefore);
      };
      for (const q of queries) {
        const unfiltered = allMatches(params(q));
        const filtered = allMatches(params(q, range));
        const expected = unfiltered.ids.filter(inRange);
        expect(new Set(filtered.ids).size, `${q} ${JSON.stringify(range)}: no repeats`).toBe(filtered.ids.length);
        expect([...filtered.ids].sort(), `${q} ${JSON.stringify(range)}`).toEqual([...expected].sort());
        if (filtered.totalExact) expect(filtered.total).toBe(expected.length);
        compared += expected.length;
        fromLive += expected.filter((id) => live.db.prepare("SELECT 1 FROM videos WHERE video_id = ?").get(id) !== undefined).length;
      }
    }
    expect(compared).toBeGreaterThan(500);
    expect(fromLive).toBeGreaterThan(20);
  });

  it("include a video published exactly at either bound, as a date-time or as its day", () => {
    const q = queries[0]!;
    const [id, date] = allMatches(params(q)).ids.map((id) => [id, published.get(id)!] as const).find(([, d]) => d !== UNKNOWN)!;
    const day = date.slice(0, 10);
    const dayMs = Date.parse(`${day}T00:00:00Z`);
    const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const found = (range: Record<string, string>) => allMatches(params(q, range)).ids.includes(id);
    expect(found({ publishedAfter: date, publishedBefore: date })).toBe(true);
    expect(found({ publishedAfter: day, publishedBefore: day })).toBe(true);
    expect(found({ publishedAfter: isoDay(dayMs + 86_400_000) })).toBe(false);
    expect(found({ publishedBefore: isoDay(dayMs - 86_400_000) })).toBe(false);
    // One millisecond past the instant, on either side.
    expect(found({ publishedAfter: new Date(Date.parse(date) + 1).toISOString() })).toBe(false);
    expect(found({ publishedBefore: new Date(Date.parse(date) - 1).toISOString() })).toBe(false);
    // The same instant in another offset.
    const shifted = new Date(Date.parse(date) + 2 * 3_600_000).toISOString().slice(0, 19) + "+02:00";
    expect(found({ publishedAfter: shifted, publishedBefore: shifted })).toBe(true);
  });

  it("leave out videos whose date is unknown, in the artifact set and in the live store", () => {
    const q = queries.find((query) => allMatches(params(query)).ids.filter((id) => id.startsWith("undated")).length >= 2);
    expect(q, "a query matching undated videos in both shards").toBeDefined();
    const undatedIn = (range: Record<string, string>) => allMatches(params(q!, range)).ids.filter((id) => id.startsWith("undated"));
    expect(undatedIn({}).length).toBeGreaterThan(0);
    expect(undatedIn({ publishedAfter: "0000-01-01" })).toEqual([]);
    expect(undatedIn({ publishedBefore: "9999-12-31" })).toEqual([]);
    expect(undatedIn({ publishedAfter: "1970-01-01", publishedBefore: "1970-01-01" })).toEqual([]);
  });

  it("list the same matches by looking up each row of the bitmap, by walking the list through it, and by joining the row", () => {
    const db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
    try {
      const lastRank = db.prepare("SELECT max(id) FROM videos").pluck().get() as number;
      const facts = { popularityOrdered: true, channel: () => undefined, lastRankWith: () => undefined };
      let lookedUp = 0;
      let compared = 0;
      for (const table of ["transcript_fts", "phrase_pairs"]) {
        const matches = rankOrderedMatches(db, table, lastRank);
        const expressions = table === "transcript_fts" ? queries.slice(0, 12).map((q) => `script : (${parseSearchQuery(q)!.expression})`) : ['pairs : "of_the"', 'pairs : "in_the"', 'pairs : "it_is"'];
        for (const [from, to] of [[0.5, 0.501], [0.5, 0.51], [0.3, 0.37]] as const) {
          const where = bindFilters(SearchQuery.parse({ q: "x", publishedAfter: dates[Math.floor(from * dates.length)], publishedBefore: dates[Math.floor(to * dates.length)] }), facts, lastRank)!.bounds;
          const made = rowBitmap(db, where.where, where.params, lastRank);
          for (const maxRank of [lastRank, Math.floor(lastRank / 2)]) {
            const joined = { ...where, maxRank };
            const walked = { ...joined, rows: made.rows };
            const seeking = { ...walked, rowList: made.list };
            for (const expression of expressions) {
              for (const [limit, offset] of [[1, 0], [10, 0], [100, 0], [5, 3], [1001, 0]] as const) {
                const expected = matches(expression, joined, limit, offset);
                expect(matches(expression, walked, limit, offset), `${expression} ${limit}+${offset}`).toEqual(expected);
                expect(matches(expression, seeking, limit, offset), `${expression} ${limit}+${offset}`).toEqual(expected);
                compared++;
                if (made.list!.length ** 2 * 40 <= (limit + offset) * lastRank) lookedUp++;
              }
            }
          }
        }
      }
      // Both ways were taken.
      expect(lookedUp).toBeGreaterThan(20);
      expect(lookedUp).toBeLessThan(compared - 20);
    } finally {
      db.close();
    }
  });

  it("make a row bitmap for a narrow range only, read through the build's index of dates", () => {
    const db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
    try {
      const lastRank = db.prepare("SELECT max(id) FROM videos").pluck().get() as number;
      const facts = { popularityOrdered: true, channel: () => undefined, lastRankWith: () => undefined };
      const bound = (range: Record<string, string>) => bindFilters(SearchQuery.parse({ q: "x", ...range }), facts, lastRank)!.bounds;
      const narrow = bound({ publishedAfter: dates[100]!, publishedBefore: dates[110]! });
      const made = rowBitmap(db, narrow.where, narrow.params, lastRank);
      const expected = db.prepare(`SELECT id FROM videos v WHERE ${narrow.where} ORDER BY id`).pluck().all(...narrow.params) as number[];
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThanOrEqual(lastRank * ROW_BITMAP_MAX_SHARE);
      const inBitmap = Array.from({ length: lastRank + 1 }, (_, id) => id).filter((id) => ((made.rows![id >>> 5] ?? 0) & (1 << (id & 31))) !== 0);
      expect(inBitmap).toEqual(expected);
      expect(made.share).toBeCloseTo(expected.length / lastRank);
      expect(rowBitmap(db, bound({ publishedAfter: dates[0]! }).where, bound({ publishedAfter: dates[0]! }).params, lastRank).rows).toBeUndefined();
      const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT v.id FROM videos v WHERE ${narrow.where} LIMIT ?`).all(...narrow.params, 10) as { detail: string }[];
      expect(plan.map((p) => p.detail).join("\n")).toMatch(/USING (COVERING )?INDEX videos_by_published/);
    } finally {
      db.close();
    }
  });
});
