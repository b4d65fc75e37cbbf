/**
 * The fixed search query set: derived deterministically (seeded) from the
 * artifact set itself, so the same corpus always gives the same queries.
 *
 * Mix: 1-4 words; frequent, mid-frequency and rare terms by document
 * frequency; stop words alone and with content words; word runs sampled from
 * real transcripts; about an eighth each with a channel filter, a minViews
 * filter and a deep offset. Every query asks for 10 results.
 */
import Database from "better-sqlite3";
import { createRandom, type Random } from "../../pipeline/corpus/random.js";
import { tokenize } from "../../pipeline/artifact/text/text.js";
import { searchRequestPath } from "../../server/routes/search.js";
import { STOP_WORDS } from "./stop-words.js";

export interface BenchQuery {
  q: string;
  limit: number;
  offset: number;
  channel?: string;
  minViews?: number;
  /** What the query stands for, e.g. "2w frequent+rare" or "3w sampled +channel". */
  kind: string;
}

export const RESULTS_PER_QUERY = 10;
const DEEP_OFFSETS = [100, 250, 500, 990];

interface Vocabulary {
  frequent: string[];
  mid: string[];
  rare: string[];
  stop: string[];
}

export function buildQuerySet(databasePath: string, count: number, seed: number): BenchQuery[] {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    const random = createRandom(seed, 0x9e7);
    const vocabulary = loadVocabulary(db);
    const maxId = db.prepare("SELECT max(id) FROM videos").pluck().get() as number;
    const script = db
      .prepare("SELECT t.script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ? AND t.language_code = 'en'")
      .pluck();
    const sampleRun = (words: number): string => {
      for (let attempt = 0; attempt < 50; attempt++) {
        const text = script.get(1 + random.int(maxId)) as string | undefined;
        if (!text) continue;
        const tokens = tokenize(text.slice(0, 20_000));
        if (tokens.length < words) continue;
        const at = random.int(tokens.length - words + 1);
        const run = tokens.slice(at, at + words);
        if (run.every((t) => STOP_WORDS.has(t))) continue;
        return run.join(" ");
      }
      return pick(random, vocabulary.mid);
    };
    const pickFrom = (list: string[], fallback: string[]) => pick(random, list.length > 0 ? list : fallback);
    const v = vocabulary;
    const shapes: [string, () => string][] = [
      ["1w frequent", () => pickFrom(v.frequent, v.mid)],
      ["1w mid", () => pickFrom(v.mid, v.frequent)],
      ["1w rare", () => pickFrom(v.rare, v.mid)],
      ["1w stop", () => pickFrom(v.stop, v.frequent)],
      ["2w frequent+frequent", () => `${pickFrom(v.frequent, v.mid)} ${pickFrom(v.frequent, v.mid)}`],
      ["2w frequent+rare", () => `${pickFrom(v.frequent, v.mid)} ${pickFrom(v.rare, v.mid)}`],
      ["2w stop+mid", () => `${pickFrom(v.stop, v.frequent)} ${pickFrom(v.mid, v.frequent)}`],
      ["2w sampled", () => sampleRun(2)],
      ["3w sampled", () => sampleRun(3)],
      ["3w mid+mid+frequent", () => `${pickFrom(v.mid, v.frequent)} ${pickFrom(v.mid, v.frequent)} ${pickFrom(v.frequent, v.mid)}`],
      ["4w sampled", () => sampleRun(4)],
      ["4w stop+stop+mid+frequent", () => `${pickFrom(v.stop, v.frequent)} ${pickFrom(v.stop, v.frequent)} ${pickFrom(v.mid, v.frequent)} ${pickFrom(v.frequent, v.mid)}`],
    ];
    const channels = db.prepare("SELECT channel_id FROM channels WHERE transcript_count > 0 ORDER BY transcript_count DESC").pluck().all() as string[];
    const viewQuantiles = [0.5, 0.9, 0.99].map(
      (share) => db.prepare("SELECT view_count FROM videos WHERE id = ?").pluck().get(Math.max(1, Math.round(maxId * (1 - share)))) as number,
    );
    const queries: BenchQuery[] = [];
    for (let i = 0; i < count; i++) {
      const [name, make] = shapes[i % shapes.length]!;
      const query: BenchQuery = { q: make(), limit: RESULTS_PER_QUERY, offset: 0, kind: name };
      // Filters and offsets rotate independently of the shapes, so each shape meets each of them.
      const variant = Math.floor(i / shapes.length) % 8;
      if (variant === 1 && channels.length > 0) {
        // Half from the biggest channels (many matches), half from any channel.
        query.channel = random.chance(0.5) ? channels[random.int(Math.min(10, channels.length))]! : channels[random.int(channels.length)]!;
        query.kind += " +channel";
      } else if (variant === 3) {
        query.minViews = viewQuantiles[random.int(viewQuantiles.length)]!;
        query.kind += " +minViews";
      } else if (variant === 5) {
        query.offset = DEEP_OFFSETS[random.int(DEEP_OFFSETS.length)]!;
        query.kind += " +deep offset";
      }
      queries.push(query);
    }
    return queries;
  } finally {
    db.close();
  }
}

function pick(random: Random, list: string[]): string {
  return list[random.int(list.length)] ?? "the";
}

function loadVocabulary(db: Database.Database): Vocabulary {
  const documents = (db.prepare("SELECT count(*) FROM videos WHERE transcript IS NOT NULL").pluck().get() as number) || 1;
  const rows = db.prepare("SELECT term, df FROM term_stats").all() as { term: string; df: number }[];
  const vocabulary: Vocabulary = { frequent: [], mid: [], rare: [], stop: [] };
  const rareCeiling = Math.max(5, documents * 0.0005);
  for (const { term, df } of rows) {
    // Channel tokens of the `chan` column and numbers are not words anyone searches transcripts for.
    if (!/^\p{L}{2,}$/u.test(term) || /^c\d+$/.test(term)) continue;
    if (STOP_WORDS.has(term)) {
      if (df > 0) vocabulary.stop.push(term);
      continue;
    }
    if (term.length < 3) continue;
    const share = df / documents;
    if (share >= 0.2) vocabulary.frequent.push(term);
    else if (share >= 0.01) vocabulary.mid.push(term);
    else if (df >= 2 && df <= rareCeiling) vocabulary.rare.push(term);
  }
  for (const list of Object.values(vocabulary)) list.sort();
  return vocabulary;
}

/** Path and query string of a search request. */
export function searchPath(query: BenchQuery): string {
  return searchRequestPath(query);
}
