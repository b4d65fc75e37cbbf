/**
 * The matched moment of a search hit: the start time of the segment where
 * the snippet's first match begins, a watch link to it, and a few other
 * segments that match. Made from what the snippet already found (the
 * occurrences of the query's terms) and the transcript's timings, for the
 * hits of the page returned only.
 *
 * A match is an occurrence of one of the query's groups (a word, or a
 * quoted phrase's words as consecutive tokens) or of the whole query as a
 * phrase. The snippet's first match is its first whole-query phrase where
 * it shows one (a multi-word query ranks those first), else its first
 * group match, so a stray word before the phrase does not take the moment.
 */
import { TOKEN_CHARACTER } from "../../../pipeline/artifact/text/index.js";
import type { Moment } from "../../data/catalog.js";
import { findOccurrences } from "./occurrences.js";
import type { ParsedQuery } from "../query.js";
import { segmentAt, type SegmentIndex } from "./segment-index.js";
import { makeSnippet, renderSnippet, snippetWindow } from "./snippet.js";

/** Other matching segments given with a hit. */
export const MAX_MOMENTS = 3;

/** What a hit shows of its transcript: kept per query with the ranked head (server/search/shard.ts). */
export interface HitText {
  snippet: string;
  /** Start of the segment where the snippet's first match begins. */
  startSeconds: number;
  moments: Moment[];
}

export interface QueryMatch {
  start: number;
  end: number;
  /** Index into `parsed.groups`, or -1 for the whole query as a phrase. */
  group: number;
}

export interface HitTextOptions {
  /** Snippet length in characters. */
  maxChars: number;
  /** Occurrences per term looked at (findOccurrences). */
  maxSpans: number;
  /** Whether the text is pure ASCII, where the caller knows (findOccurrences). */
  ascii?: boolean;
  /** The text's UTF-8 bytes, where the caller has them (findOccurrences). */
  bytes?: Buffer;
}

/** The snippet, the moment and the other moments of one hit. `index`: its segments (without any, moment 0). */
export function hitText(script: string, index: SegmentIndex, parsed: ParsedQuery, options: HitTextOptions): HitText {
  const occurrences = findOccurrences(script, parsed.terms, options.maxSpans, options.ascii, options.bytes);
  const window = snippetWindow(script, occurrences, { maxChars: options.maxChars });
  const snippet = renderSnippet(script, window);
  const matches = queryMatches(script, occurrences.spans, parsed);
  const inWindow = (m: QueryMatch) => m.start >= window.start && m.end <= window.end;
  const first = matches.find((m) => m.group === -1 && inWindow(m)) ?? matches.find(inWindow);
  const segment = segmentAt(index, first?.start ?? window.marks[0]?.[0] ?? window.start);
  if (segment < 0) return { snippet, startSeconds: 0, moments: [] };
  const startMs = index.startMs[segment]!;
  return { snippet, startSeconds: startMs / 1000, moments: otherMoments(script, occurrences.spans, matches, index, startMs, options.maxChars) };
}

/** `https://www.youtube.com/watch?v=ID&t=Ns`, N the whole seconds of `startSeconds`. */
export function watchUrl(videoId: string, startSeconds: number): string {
  return `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}&t=${Math.floor(startSeconds)}s`;
}

/**
 * The query's matches among `spans` (findOccurrences' triples: start, end,
 * index into `parsed.terms`), in text order. Two spans are consecutive
 * tokens when no token character lies between them, as the index sees it.
 */
export function queryMatches(text: string, spans: readonly number[], parsed: ParsedQuery): QueryMatch[] {
  const n = spans.length / 3;
  const adjacent: boolean[] = [];
  for (let i = 0; i + 1 < n; i++) adjacent.push(noTokenBetween(text, spans[i * 3 + 1]!, spans[(i + 1) * 3]!));
  const termIndex = (term: string) => parsed.terms.indexOf(term);
  const sequences = parsed.groups.map((group, g) => ({ group: g, terms: group.split(" ").map(termIndex) }));
  if (parsed.phraseTerms) sequences.push({ group: -1, terms: parsed.phraseTerms.map(termIndex) });
  const matches: QueryMatch[] = [];
  for (const { group, terms } of sequences) {
    for (let i = 0; i + terms.length <= n; i++) {
      let found = true;
      for (let j = 0; j < terms.length && found; j++) {
        found = spans[(i + j) * 3 + 2] === terms[j] && (j === terms.length - 1 || adjacent[i + j] === true);
      }
      if (found) matches.push({ start: spans[i * 3]!, end: spans[(i + terms.length - 1) * 3 + 1]!, group });
    }
  }
  return matches.sort((a, b) => a.start - b.start || a.group - b.group);
}

/** Indexes of the segments where a match of the query begins, ascending: the `matches` of a transcript asked for with `q`. */
export function matchingSegments(script: string, index: SegmentIndex, parsed: ParsedQuery): number[] {
  const { spans } = findOccurrences(script, parsed.terms);
  const segments = new Set<number>();
  for (const match of queryMatches(script, spans, parsed)) segments.add(segmentAt(index, match.start));
  return [...segments].sort((a, b) => a - b);
}

/**
 * Up to MAX_MOMENTS segments, at other times than the hit's own, holding
 * matches: those with the whole query as a phrase first, then those with
 * the most of its groups, then the earliest; given in time order.
 */
function otherMoments(script: string, spans: readonly number[], matches: QueryMatch[], index: SegmentIndex, ownMs: number, maxChars: number): Moment[] {
  const bySegment = new Map<number, { phrase: boolean; groups: Set<number> }>();
  for (const match of matches) {
    const segment = segmentAt(index, match.start);
    if (index.startMs[segment] === ownMs) continue;
    let seen = bySegment.get(segment);
    if (!seen) bySegment.set(segment, (seen = { phrase: false, groups: new Set() }));
    if (match.group === -1) seen.phrase = true;
    else seen.groups.add(match.group);
  }
  const chosen: number[] = [];
  const times = new Set<number>();
  const ranked = [...bySegment].sort(([a, x], [b, y]) => Number(y.phrase) - Number(x.phrase) || y.groups.size - x.groups.size || a - b);
  for (const [segment] of ranked) {
    if (chosen.length === MAX_MOMENTS) break;
    const ms = index.startMs[segment]!;
    if (times.has(ms)) continue;
    times.add(ms);
    chosen.push(segment);
  }
  return chosen.sort((a, b) => a - b).map((segment) => {
    const from = index.offsets[segment]!;
    const to = from + index.lengths[segment]!;
    const inside: number[] = [];
    for (let i = 0; i < spans.length; i += 3) {
      if (spans[i]! >= from && spans[i + 1]! <= to) inside.push(spans[i]! - from, spans[i + 1]! - from, spans[i + 2]!);
    }
    return { startSeconds: index.startMs[segment]! / 1000, text: makeSnippet(script.slice(from, to), { counts: [], spans: inside }, { maxChars }) };
  });
}

function noTokenBetween(text: string, from: number, to: number): boolean {
  for (let at = from; at < to; at++) {
    const unit = text.charCodeAt(at);
    // ASCII, the common case, without the Unicode class (a regex test per character).
    if (unit < 128) {
      if ((unit >= 48 && unit <= 57) || (unit >= 65 && unit <= 90) || (unit >= 97 && unit <= 122)) return false;
      continue;
    }
    const code = text.codePointAt(at)!;
    if (TOKEN_CHARACTER.test(String.fromCodePoint(code))) return false;
    if (code > 0xffff) at++;
  }
  return true;
}
