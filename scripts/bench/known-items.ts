/**
 * Known-item queries: for sampled transcripts, a run of 2-4 consecutive words
 * of the transcript that occurs, as a phrase, in no other transcript
 * (checked with an FTS5 phrase query on the artifact set). The words are
 * sent unquoted, as people type them, so other transcripts holding all of
 * them (in any order, anywhere) still compete; the quoted form is measured
 * too and reported separately.
 */
import Database from "better-sqlite3";
import { createRandom } from "../../pipeline/corpus/random.js";
import { tokenize } from "../../pipeline/artifact/text/text.js";
import { STOP_WORDS } from "./stop-words.js";

export interface KnownItem {
  videoId: string;
  /** Words of the fragment, space-separated, unquoted. */
  words: string;
  /** Where in the transcript the fragment starts (0..1 of its tokens). */
  position: number;
}

export interface KnownItemSample {
  items: KnownItem[];
  /** Sampled transcripts for which no distinctive 2-4 word run was found in the attempts allowed. */
  skipped: number;
}

const ATTEMPTS_PER_ITEM = 12;

export function sampleKnownItems(databasePath: string, count: number, seed: number): KnownItemSample {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    const random = createRandom(seed, 0x4b1);
    const maxId = db.prepare("SELECT max(id) FROM videos").pluck().get() as number;
    const row = db.prepare(
      `SELECT v.video_id AS videoId, t.script AS script FROM videos v JOIN transcripts t ON t.id = v.transcript
       WHERE v.id = ? AND t.language_code = 'en'`,
    );
    const phrase = db.prepare("SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? LIMIT 2").pluck();
    const seen = new Set<number>();
    const items: KnownItem[] = [];
    let skipped = 0;
    const available = db.prepare("SELECT count(*) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE t.language_code = 'en'").pluck().get() as number;
    const target = Math.min(count, available);
    while (items.length < target && seen.size < maxId) {
      const id = 1 + random.int(maxId);
      if (seen.has(id)) continue;
      seen.add(id);
      const found = row.get(id) as { videoId: string; script: string } | undefined;
      if (!found) continue;
      const tokens = tokenize(found.script);
      let item: KnownItem | undefined;
      for (let attempt = 0; attempt < ATTEMPTS_PER_ITEM && !item && tokens.length >= 2; attempt++) {
        const at = random.int(tokens.length - 1);
        for (let words = 2; words <= 4 && at + words <= tokens.length; words++) {
          const run = tokens.slice(at, at + words);
          if (run.every((t) => STOP_WORDS.has(t))) continue;
          const matches = phrase.all(`script : "${run.join(" ")}"`) as number[];
          if (matches.length === 1 && matches[0] === id) {
            item = { videoId: found.videoId, words: run.join(" "), position: at / tokens.length };
            break;
          }
        }
      }
      if (item) items.push(item);
      else skipped++;
    }
    return { items, skipped };
  } finally {
    db.close();
  }
}
