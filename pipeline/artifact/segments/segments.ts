/**
 * How timed segments are stored: the transcript text once, as `script` (the
 * segment texts joined by single spaces, also the FTS5 content), plus a
 * compact `timings` blob of Int32 triples (start ms, duration ms, text length
 * in UTF-16 code units) from which every segment is sliced back out.
 */
import type { SegmentRecord, TranscriptRecord } from "../contract/index.js";
import { countWords, foldWhitespace, stripControlCharacters } from "../text/index.js";

export interface StoredSegments {
  script: string;
  timings: Buffer;
}

export interface Sub {
  text: string;
  /** Decimal seconds from the start, as a string (spec 2.2). */
  offset: string;
  /** Decimal seconds, as a string (spec 2.2). */
  duration: string;
}

export function encodeSegments(segments: readonly SegmentRecord[]): StoredSegments {
  const timings = Buffer.alloc(segments.length * 12);
  const texts: string[] = [];
  segments.forEach((segment, i) => {
    timings.writeInt32LE(Math.round(segment.start * 1000), i * 12);
    timings.writeInt32LE(Math.round(segment.duration * 1000), i * 12 + 4);
    timings.writeInt32LE(segment.text.length, i * 12 + 8);
    texts.push(segment.text);
  });
  return { script: texts.join(" "), timings };
}

export function decodeSegments(script: string, timings: Uint8Array): Sub[] {
  const view = new DataView(timings.buffer, timings.byteOffset, timings.byteLength);
  const subs: Sub[] = [];
  let position = 0;
  for (let at = 0; at + 12 <= timings.byteLength; at += 12) {
    const startMs = view.getInt32(at, true);
    const durationMs = view.getInt32(at + 4, true);
    const length = view.getInt32(at + 8, true);
    subs.push({
      text: script.slice(position, position + length),
      offset: formatSeconds(startMs),
      duration: formatSeconds(durationMs),
    });
    position += length + 1;
  }
  return subs;
}

/** Total duration: the end of the last-ending segment, in seconds. */
export function segmentsDuration(segments: readonly SegmentRecord[]): number {
  let end = 0;
  for (const s of segments) end = Math.max(end, s.start + s.duration);
  return Math.round(end * 1000) / 1000;
}

/**
 * Milliseconds as decimal seconds without trailing zeros: 1540 → "1.54",
 * 3000 → "3", 5 → "0.005". Integer arithmetic: this runs once per segment
 * of every transcript served, and float-to-string is the slow part.
 */
export function formatSeconds(ms: number): string {
  const whole = Math.trunc(ms / 1000);
  const frac = ms - whole * 1000;
  if (frac === 0) return String(whole);
  if (frac % 100 === 0) return `${whole}.${frac / 100}`;
  if (frac % 10 === 0) return `${whole}.${frac < 100 ? "0" : ""}${frac / 10}`;
  return `${whole}.${frac < 10 ? "00" : frac < 100 ? "0" : ""}${frac}`;
}

export interface PreparedTrack extends StoredSegments {
  wordCount: number;
  duration: number;
}

/**
 * A track as stored: text cleaned (control characters out, whitespace folded),
 * empty cues dropped, then encoded. undefined when no text is left.
 */
export function prepareTrack(track: TranscriptRecord): PreparedTrack | undefined {
  const segments = track.segments
    .map((s) => ({ ...s, text: foldWhitespace(stripControlCharacters(s.text)) }))
    .filter((s) => s.text.length > 0);
  if (segments.length === 0) return undefined;
  const stored = encodeSegments(segments);
  return { ...stored, wordCount: countWords(stored.script), duration: segmentsDuration(segments) };
}
