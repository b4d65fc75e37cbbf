/** Builds an artifact set's term counts (format: pipeline/artifact/search-index/term-counts.ts). */
import type Database from "better-sqlite3";
import { encodeCounts, TERM_COUNTS_DDL, TERM_COUNTS_MAX_SHARE, TERM_COUNTS_MIN_DF, TermVectors } from "../artifact/search-index/index.js";
import { ASCII_TERM } from "../artifact/text/index.js";
import { checkpoint } from "../command/interrupt.js";

/** Transcripts counted per statement: a few tens of MiB of text, a fraction of a second. */
const CHUNK_ROWS = 2000;

/**
 * Fills `term_count_words` and `term_counts` in `db` from its primary
 * transcripts and `term_stats`, in rank order, a chunk per turn of the event
 * loop (`signal` checked between them); `progress` is told the rows done.
 * `minDf`: the words listed are those in more transcripts than this (tests
 * of small sets list more). Returns how many transcripts have a row.
 */
export async function buildTermCounts(
  db: Database.Database,
  signal?: AbortSignal,
  progress: (done: number, total: number) => void = () => {},
  minDf = TERM_COUNTS_MIN_DF,
): Promise<number> {
  db.exec(TERM_COUNTS_DDL);
  const transcripts = db.prepare("SELECT count(*) FROM videos WHERE transcript IS NOT NULL").pluck().get() as number;
  const words = db
    .prepare("SELECT term FROM term_stats WHERE df > ? AND df <= ? ORDER BY term")
    .pluck()
    .all(minDf, Math.floor(transcripts * TERM_COUNTS_MAX_SHARE))
    // A vector counts words of ASCII letters and digits (term-vectors.ts); others are counted in the text.
    .filter((word) => ASCII_TERM.test(word as string)) as string[];
  const idOfWord = new Map(words.map((word, id) => [word, id]));
  const insertWord = db.prepare("INSERT INTO term_count_words (id, word) VALUES (?, ?)");
  db.transaction(() => words.forEach((word, id) => insertWord.run(id, word)))();
  const chunk = db.prepare(
    `SELECT v.id AS id, t.word_count AS words, v.view_count AS views, CAST(t.script AS BLOB) AS bytes
     FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id > ? ORDER BY v.id LIMIT ?`,
  );
  const insert = db.prepare("INSERT INTO term_counts (id, words, views, text_bytes, counts) VALUES (?, ?, ?, ?, ?)");
  const vectors = new TermVectors();
  // A vector's ids are its own dictionary's; this maps them to the listed words' ids (-1: not listed).
  let listed = new Int32Array(0);
  let known = 0;
  const pairs: [number, number][] = [];
  let after = 0;
  let done = 0;
  let stored = 0;
  for (;;) {
    await checkpoint(signal);
    const rows = chunk.all(after, CHUNK_ROWS) as { id: number; words: number; views: number; bytes: Buffer | null }[];
    db.transaction(() => {
      for (const { id, words: wordCount, views, bytes } of rows) {
        const text = bytes ?? Buffer.alloc(0);
        const vector = vectors.vectorOf(text);
        if (!vector) continue;
        if (known < vectors.terms) {
          if (listed.length < vectors.terms) {
            const grown = new Int32Array(Math.max(vectors.terms, listed.length * 2));
            grown.set(listed);
            listed = grown;
          }
          for (; known < vectors.terms; known++) listed[known] = idOfWord.get(vectors.termOf(known)) ?? -1;
        }
        pairs.length = 0;
        for (let k = 0; k < vector.ids.length; k++) {
          const word = listed[vector.ids[k]!]!;
          if (word >= 0) pairs.push([word, vector.counts[k]!]);
        }
        pairs.sort((a, b) => a[0] - b[0]);
        insert.run(id, wordCount, views, text.length, encodeCounts(pairs.map((p) => p[0]), pairs.map((p) => p[1])));
        stored++;
      }
    })();
    done += rows.length;
    progress(done, transcripts);
    if (rows.length < CHUNK_ROWS) return stored;
    after = rows[rows.length - 1]!.id;
  }
}
