/**
 * Searches run once at start, before the server is ready, so that a fresh
 * process has compiled each path a search can take and prepared its
 * statements before the first user's search. Without them the first
 * searches after a start each pay for a path seen for the first time, many
 * times what the same search costs afterwards (docs/search-memory.md).
 *
 * The queries are words of the set's own most viewed transcripts, one of
 * each kind of work: a word in most transcripts, one counted in the
 * candidates' text, one counted from the index, two consecutive words (the
 * phrase tier, the pair index, the second tier), the same with a popularity
 * bound, and a page past the ranked head. Then come practice searches: runs
 * of one to four consecutive words of the next most viewed transcripts, as
 * many as it takes for the code every search runs to be compiled by the
 * engine's optimizing tier (one of each kind leaves it to the first users'
 * searches, each then several times slower than later), within a bounded
 * share of the start. The caller empties the result cache afterwards:
 * nothing they compute is kept for the users' searches.
 */
import type Database from "better-sqlite3";
import type { SearchParams } from "../../data/catalog.js";
import { tokenize } from "../../../pipeline/artifact/text/index.js";
import { filtersKey } from "../filters.js";
import type { HotTranscripts } from "./hot-transcripts.js";

export interface WarmUpOptions {
  /** Transcripts in the set. */
  documents: number;
  /** Terms in at most this many transcripts are counted from the index (SearchOptions.indexCountMaxDf). */
  indexCountMaxDf: number;
  /** Terms in more than this share are scored as present (SearchOptions.countTermMaxShare). */
  countTermMaxShare: number;
  /** A view count that bounds the matches to the most viewed part of the set. */
  minViews: number;
}

/** At most this many words of the sample are looked up. */
const SAMPLE_WORDS = 2000;

/** Practice searches after the one of each kind, and the most time they may take together. */
export const PRACTICE_SEARCHES = 150;
const PRACTICE_MS = 2000;

/** The transcripts (popularity ranks) whose words the practice searches are made of. */
const PRACTICE_FROM = 6;
const PRACTICE_TO = 55;

/**
 * Up to `count` distinct queries of one to four consecutive words of `text`
 * (lengths in turn), spread over it; every fifth bounded to the most viewed
 * part of the set (`minViews`), every ninth a page past the first.
 */
export function practiceQueries(text: string, count: number, minViews: number): SearchParams[] {
  const words = tokenize(text);
  const queries: SearchParams[] = [];
  const seen = new Set<string>();
  // A prime stride spreads the runs over the text; a repeat is skipped, and the tries are bounded for a short text.
  for (let i = 0; queries.length < count && i < count * 4; i++) {
    const length = 1 + (i % 4);
    if (words.length < length) continue;
    const at = (i * 7919) % (words.length - length + 1);
    const q = words.slice(at, at + length).join(" ");
    const query: SearchParams = { q, limit: 10, offset: i % 9 === 8 ? 100 : 0, ...(i % 5 === 4 ? { minViews } : {}) };
    const key = `${q}|${query.offset}|${filtersKey(query)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    queries.push(query);
  }
  return queries;
}

export function warmUpQueries(text: string, df: (term: string) => number, options: WarmUpOptions): SearchParams[] {
  const words = tokenize(text).slice(0, SAMPLE_WORDS);
  if (words.length === 0) return [];
  const dfOf = new Map<string, number>();
  for (const word of words) if (!dfOf.has(word)) dfOf.set(word, df(word));
  const counted = options.documents * options.countTermMaxShare;
  const byDf = [...dfOf].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const frequent = byDf[0]?.[0];
  const inText = byDf.find(([word, n]) => word !== frequent && n > options.indexCountMaxDf && n <= counted)?.[0];
  // The rarest word: its occurrences are few, and it is neither of the others.
  const rarest = byDf[byDf.length - 1];
  const fromIndex = rarest && rarest[1] <= options.indexCountMaxDf && rarest[0] !== frequent && rarest[0] !== inText ? rarest[0] : undefined;
  const at = words.findIndex((word, i) => i + 1 < words.length && word !== words[i + 1]);
  const phrase = at >= 0 ? `${words[at]} ${words[at + 1]}` : undefined;
  const page = (q: string, extra: Partial<SearchParams> = {}): SearchParams => ({ q, limit: 10, offset: 0, ...extra });
  return [
    ...[frequent, inText, fromIndex].flatMap((q) => (q ? [page(q)] : [])),
    ...(phrase ? [page(phrase), page(phrase, { minViews: options.minViews })] : []),
    ...(frequent ? [page(frequent, { offset: 200 })] : []),
  ];
}

/**
 * Runs the warm-up searches on words of the five most viewed transcripts,
 * then the practice searches on words of the next fifty, one per turn of the
 * event loop (`search` runs one), and returns how many ran; stops early when
 * the database is closed. The caller empties the result cache afterwards.
 */
export async function runWarmUpSearches(
  db: Database.Database,
  hot: HotTranscripts | undefined,
  df: (term: string) => number,
  options: Omit<WarmUpOptions, "minViews">,
  search: (params: SearchParams) => void,
): Promise<number> {
  if (!db.open) return 0;
  const bound = mostViewedBound(db);
  const queries = warmUpQueries(textOf(db, hot, 1, 5), df, { ...options, minViews: bound });
  let run = 0;
  for (const query of queries) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!db.open) return run;
    search(query);
    run++;
  }
  const deadline = performance.now() + PRACTICE_MS;
  for (const query of practiceQueries(textOf(db, hot, PRACTICE_FROM, PRACTICE_TO), PRACTICE_SEARCHES, bound)) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!db.open || performance.now() > deadline) break;
    search(query);
    run++;
  }
  return run;
}

/** The ranks whose words make the practice requests over HTTP (server/start/serving-practice.ts): the practice searches' and fifty more, so a small set has some. */
const REQUESTS_FROM = 1;
const REQUESTS_TO = PRACTICE_TO + 50;

/** Up to `count` practice searches for requests over HTTP, made as the practice searches are, of the most viewed transcripts' words. */
export function practiceRequests(db: Database.Database, hot: HotTranscripts | undefined, count: number): SearchParams[] {
  if (!db.open || count <= 0) return [];
  const bound = mostViewedBound(db);
  return practiceQueries(textOf(db, hot, REQUESTS_FROM, REQUESTS_TO), count, bound);
}

/** A view count that bounds the matches to the hundred most viewed transcripts (0 in an empty set). */
function mostViewedBound(db: Database.Database): number {
  return (db.prepare("SELECT view_count FROM videos WHERE id <= 100 ORDER BY id DESC LIMIT 1").pluck().get() as number | undefined) ?? 0;
}

/** The texts of the transcripts ranked `from` to `to`, from memory where all of them are held there. */
function textOf(db: Database.Database, hot: HotTranscripts | undefined, from: number, to: number): string {
  const ids = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const held = ids.map((id) => hot?.get(id)?.bytes.toString("utf8"));
  if (held.every((t) => t !== undefined)) return held.join("\n");
  const rows = db.prepare("SELECT t.script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id BETWEEN ? AND ? ORDER BY v.id").pluck().all(from, to) as string[];
  return rows.join("\n");
}
