/**
 * Searches run once at start, before the server listens, so that a fresh
 * process has compiled each path a search can take and prepared its
 * statements before the first user's search. Without them the first
 * searches after a start each pay for a path seen for the first time, many
 * times what the same search costs afterwards (docs/search.md).
 *
 * The queries are words of the set's own most viewed transcripts, one of
 * each kind of work: a word in most transcripts, one counted in the
 * candidates' text, one counted from the index, two consecutive words (the
 * phrase tier, the pair index, the second tier), the same with a popularity
 * bound, and a page past the ranked head. The caller empties the result
 * cache afterwards: nothing they compute is kept for the users' searches.
 */
import type Database from "better-sqlite3";
import type { SearchParams } from "../../data/catalog.js";
import { tokenize } from "../../../pipeline/artifact/text.js";
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
 * one per turn of the event loop (`search` runs one), and returns how many
 * ran; stops early when the database is closed. The caller empties the
 * result cache afterwards.
 */
export async function runWarmUpSearches(
  db: Database.Database,
  hot: HotTranscripts | undefined,
  df: (term: string) => number,
  options: Omit<WarmUpOptions, "minViews">,
  search: (params: SearchParams) => void,
): Promise<number> {
  if (!db.open) return 0;
  // The five most viewed are the first text held in memory, where there is any.
  const held = [1, 2, 3, 4, 5].map((id) => hot?.get(id)?.bytes.toString("utf8"));
  const text = held.every((t) => t !== undefined)
    ? held.join("\n")
    : (db.prepare("SELECT t.script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id <= 5 ORDER BY v.id").pluck().all() as string[]).join("\n");
  const bound = db.prepare("SELECT view_count FROM videos WHERE id <= 100 ORDER BY id DESC LIMIT 1").pluck().get() as number | undefined;
  let run = 0;
  for (const query of warmUpQueries(text, df, { ...options, minViews: bound ?? 0 })) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!db.open) break;
    search(query);
    run++;
  }
  return run;
}
