/**
 * Turns a stream of token ids into timed caption segments.
 *
 * First a speech timeline gives every token a start and end time (one pace
 * per video, longer words take longer, pauses after sentences and commas).
 * Then each caption track cuts that same timeline into segments of 5-14
 * words, so a video's manual and auto-generated English tracks agree on when
 * each word is said, as real tracks of one recording do, while differing in
 * casing, punctuation and line breaks.
 */
import type { SegmentRecord } from "../artifact/contract/index.js";
import type { Random } from "./random.js";
import type { TokenBuffer } from "./token-buffer.js";
import type { Vocabulary } from "./vocabulary.js";

export type CaptionStyle = "manual" | "generated";

const MIN_SEGMENT_WORDS = 5;
const MAX_SEGMENT_WORDS = 14;
/** A manual captioner usually breaks at a sentence end once the line has this many words. */
const SENTENCE_BREAK_WORDS = 4;

/** Start and end second of every token of a stream; reused across videos. */
export class SpeechTimeline {
  starts = new Float64Array(4096);
  ends = new Float64Array(4096);
  /** Start of the first token, as given to `fill`. */
  offset = 0;
  /** End of the last word, in seconds. */
  end = 0;

  /**
   * Times the tokens of `tokens` as one speaker reading them from `offset`
   * seconds on. `pace` scales all durations (1 ≈ 150 words a minute).
   */
  fill(vocabulary: Vocabulary, tokens: TokenBuffer, random: Random, offset: number, pace: number): void {
    const n = tokens.length;
    if (this.starts.length < n) {
      let capacity = this.starts.length;
      while (capacity < n) capacity *= 2;
      this.starts = new Float64Array(capacity);
      this.ends = new Float64Array(capacity);
    }
    const { ids } = tokens;
    const { speakingTime, endsSentence, isWord } = vocabulary;
    const starts = this.starts;
    const ends = this.ends;
    let t = offset;
    let lastWordEnd = offset;
    for (let i = 0; i < n; i++) {
      const id = ids[i] as number;
      starts[i] = t;
      if (isWord[id] === 1) {
        // ±20% per word so neighbouring words of equal length still differ.
        t += (speakingTime[id] as number) * pace * (0.8 + 0.4 * random.float());
        lastWordEnd = t;
      } else if (endsSentence[id] === 1) {
        // A breath between sentences; now and then a long pause (a demonstration, a cut).
        t += random.chance(0.02) ? 1.5 + 2.5 * random.float() : 0.25 + 0.65 * random.float();
      } else {
        t += 0.05 + 0.2 * random.float();
      }
      ends[i] = isWord[id] === 1 ? t : starts[i] as number;
    }
    this.offset = offset;
    this.end = lastWordEnd;
  }

  /**
   * Stretches (or squeezes) the filled times so the last word ends at `end`,
   * keeping the start: a video's length can then be planned without its text.
   */
  stretchTo(end: number, count: number): void {
    const span = this.end - this.offset;
    if (!(span > 0)) return;
    const factor = (end - this.offset) / span;
    const { starts, ends, offset } = this;
    for (let i = 0; i < count; i++) {
      starts[i] = offset + ((starts[i] as number) - offset) * factor;
      ends[i] = offset + ((ends[i] as number) - offset) * factor;
    }
    this.end = end;
  }
}

const round3 = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/**
 * Cuts the timed tokens into caption segments. Manual tracks show written
 * tokens with punctuation and tend to break at sentence ends; generated
 * (speech recognition) tracks show lower-cased spoken forms without
 * punctuation. Durations end with the last word, except that now and then
 * a line lingers a little past the next line's start, as real captions do.
 */
export function cutSegments(
  vocabulary: Vocabulary,
  tokens: TokenBuffer,
  timeline: SpeechTimeline,
  random: Random,
  style: CaptionStyle,
): SegmentRecord[] {
  const segments: SegmentRecord[] = [];
  const { ids } = tokens;
  const n = tokens.length;
  const { isWord, attach, endsSentence } = vocabulary;
  const forms = style === "manual" ? vocabulary.written : vocabulary.spoken;
  const manual = style === "manual";
  let i = 0;
  while (i < n) {
    const target = random.range(MIN_SEGMENT_WORDS, MAX_SEGMENT_WORDS);
    let text = "";
    let words = 0;
    let first = -1;
    let last = -1;
    for (; i < n; i++) {
      const id = ids[i] as number;
      const word = isWord[id] === 1;
      // The line is full: stop before the next word, but keep punctuation that hugs the previous one.
      if (words >= target && (word || attach[id] === 0)) break;
      const form = forms[id] as string;
      if (form.length > 0) text = text.length === 0 ? form : attach[id] === 1 && manual ? text + form : text + " " + form;
      if (word) {
        if (first < 0) first = i;
        last = i;
        words++;
      } else if (manual && endsSentence[id] === 1 && words >= SENTENCE_BREAK_WORDS && random.chance(0.7)) {
        i++;
        break;
      }
    }
    if (words === 0) break; // only stray punctuation left
    const start = timeline.starts[first] as number;
    let end = timeline.ends[last] as number;
    if (random.chance(0.12)) end += 0.1 + 0.4 * random.float();
    // Round the ends, not the length, so a line that ends as the next begins does not overlap it by a rounding error.
    const roundedStart = round3(start);
    segments.push({ start: roundedStart, duration: round3(round3(end) - roundedStart), text });
  }
  return segments;
}
