/**
 * Moments as the unit of search by meaning: a transcript cut into chunks,
 * runs of consecutive segments of about 30-60 seconds or a word budget,
 * each with the start of its first segment. A chunk is embedded as the text
 * of its segments joined by spaces, and known by the hash of that text, so a
 * later build carries its vector over when the text is unchanged.
 */
import { createHash } from "node:crypto";

/** A chunk closes once it spans this many seconds and holds at least MIN_WORDS words… */
export const CHUNK_SECONDS = 30;
const MIN_WORDS = 40;
/** …or once it spans this many seconds, or holds this many words, whichever comes first. */
export const CHUNK_MAX_SECONDS = 60;
export const CHUNK_MAX_WORDS = 160;
/** A last chunk shorter than this joins the one before it. */
const TAIL_WORDS = 20;

export interface ChunkSegment {
  /** Seconds. */
  start: number;
  text: string;
}

export interface Chunk {
  /** Seconds: the start of its first segment. */
  start: number;
  /** Its first segment's index in the transcript. */
  from: number;
  /** Its last segment's index (inclusive). */
  to: number;
  text: string;
  words: number;
}

function wordCount(text: string): number {
  let n = 0;
  for (const part of text.split(/\s+/)) if (part !== "") n++;
  return n;
}

/** A transcript's segments as chunks, in time order; none for a transcript without text. */
export function chunkSegments(segments: readonly ChunkSegment[]): Chunk[] {
  const chunks: Chunk[] = [];
  let open: { from: number; words: number; texts: string[] } | undefined;
  const close = (to: number) => {
    if (!open) return;
    chunks.push({ start: segments[open.from]!.start, from: open.from, to, text: open.texts.join(" "), words: open.words });
    open = undefined;
  };
  segments.forEach((segment, i) => {
    const words = wordCount(segment.text);
    if (words === 0) return;
    if (open) {
      const span = segment.start - segments[open.from]!.start;
      if (span >= CHUNK_MAX_SECONDS || open.words + words > CHUNK_MAX_WORDS || (span >= CHUNK_SECONDS && open.words >= MIN_WORDS)) close(i - 1);
    }
    open ??= { from: i, words: 0, texts: [] };
    open.words += words;
    open.texts.push(segment.text);
  });
  if (open) {
    const tail = open as { from: number; words: number; texts: string[] };
    const last = chunks.at(-1);
    if (last && tail.words < TAIL_WORDS) {
      last.to = segments.length - 1;
      last.text += " " + tail.texts.join(" ");
      last.words += tail.words;
      open = undefined;
    } else close(segments.length - 1);
  }
  return chunks;
}

/** What a chunk's vector is known by across builds: the SHA-256 of its text (the embedder is the vectors file's, not part of it). */
export function chunkHash(text: string): Buffer {
  return createHash("sha256").update(text).digest().subarray(0, 16);
}
