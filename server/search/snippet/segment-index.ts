/**
 * From a character offset in a transcript's text to the segment that holds
 * it. The text is the segments' texts joined by single spaces
 * (pipeline/artifact/segments/segments.ts), so each segment owns a range of offsets
 * and the ranges are in order: a binary search over their starts finds the
 * segment, and the timings give its start time.
 */
import type { Sub } from "../../../pipeline/artifact/segments/index.js";
import { VarintReader, writeVarint } from "../../../pipeline/artifact/search-index/index.js";

export interface SegmentIndex {
  /** Offset of each segment's first character in the text, in UTF-16 code units. */
  offsets: Int32Array;
  /** Length of each segment's text, in UTF-16 code units. */
  lengths: Int32Array;
  /** Start of each segment, in milliseconds. */
  startMs: Int32Array;
}

/** From the stored `timings` blob: Int32 triples (start ms, duration ms, text length). */
export function indexFromTimings(timings: Uint8Array): SegmentIndex {
  const count = Math.floor(timings.byteLength / 12);
  const view = new DataView(timings.buffer, timings.byteOffset, timings.byteLength);
  const index = emptyIndex(count);
  let position = 0;
  for (let i = 0; i < count; i++) {
    const length = view.getInt32(i * 12 + 8, true);
    index.startMs[i] = view.getInt32(i * 12, true);
    index.offsets[i] = position;
    index.lengths[i] = length;
    position += length + 1;
  }
  return index;
}

/** compactTimings' working space, grown as needed (warm-ups run on one thread, one row at a time). */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The part of a timings blob a segment index needs (each segment's start and
 * text length), in a quarter or less of its size, for transcripts held in
 * memory: the count, then per segment the start's change from the one
 * before (zigzag) and the length, as LEB128 varints (pipeline/artifact/search-index/varint.ts).
 */
export function compactTimings(timings: Uint8Array): Buffer {
  const count = Math.floor(timings.byteLength / 12);
  const view = new DataView(timings.buffer, timings.byteOffset, timings.byteLength);
  // Written into one scratch buffer, then copied out at its size: each row of a set's warm-up makes one.
  // A value below 2^35 takes at most 5 bytes; two per segment and the count.
  const most = 5 + count * 10;
  if (scratch.byteLength < most) scratch = Buffer.allocUnsafe(Math.max(most, scratch.byteLength * 2));
  const out = scratch;
  let at = writeVarint(out, 0, count);
  let previous = 0;
  for (let i = 0; i < count; i++) {
    const start = view.getInt32(i * 12, true);
    const delta = start - previous;
    at = writeVarint(out, at, delta >= 0 ? delta * 2 : -delta * 2 - 1);
    at = writeVarint(out, at, Math.max(0, view.getInt32(i * 12 + 8, true)));
    previous = start;
  }
  return Buffer.from(out.subarray(0, at));
}

/** From compactTimings' form: the same index as indexFromTimings on the blob it was made from. */
export function indexFromCompact(compact: Uint8Array): SegmentIndex {
  const varints = new VarintReader(compact);
  const next = () => varints.read();
  const count = compact.byteLength === 0 ? 0 : next();
  const index = emptyIndex(count);
  let position = 0;
  let start = 0;
  for (let i = 0; i < count; i++) {
    const zigzag = next();
    start += zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
    const length = next();
    index.startMs[i] = start;
    index.offsets[i] = position;
    index.lengths[i] = length;
    position += length + 1;
  }
  return index;
}

/** From decoded segments (a transcript as served), whose texts joined by spaces are its `script`. */
export function indexFromSubs(subs: readonly Sub[]): SegmentIndex {
  const index = emptyIndex(subs.length);
  let position = 0;
  subs.forEach((sub, i) => {
    index.startMs[i] = Math.round(Number(sub.offset) * 1000);
    index.offsets[i] = position;
    index.lengths[i] = sub.text.length;
    position += sub.text.length + 1;
  });
  return index;
}

/** The segment holding the character at `offset` (a joining space counts with the segment before it); -1 without segments. */
export function segmentAt(index: SegmentIndex, offset: number): number {
  const { offsets } = index;
  if (offsets.length === 0) return -1;
  let low = 0;
  let high = offsets.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if (offsets[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

function emptyIndex(count: number): SegmentIndex {
  return { offsets: new Int32Array(count), lengths: new Int32Array(count), startMs: new Int32Array(count) };
}
