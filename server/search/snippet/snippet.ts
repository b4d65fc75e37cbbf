/**
 * Snippets: the window of the transcript with the most distinct query terms
 * (then the most occurrences), cut at word boundaries, `…` where cut. The
 * text is HTML-escaped piece by piece and only our own <mark> tags are added
 * around matches, so a transcript can never inject markup.
 */
import { isWordChar, type Occurrences } from "./occurrences.js";

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

export interface SnippetOptions {
  /** Target length of the excerpt in characters (default 200). */
  maxChars?: number;
}

/** The part of the text a snippet shows, before its ends move to word boundaries, and the matches in it. */
export interface SnippetWindow {
  start: number;
  end: number;
  /** [start, end) of each match inside the window, in text order. */
  marks: [number, number][];
}

export function makeSnippet(text: string, occurrences: Occurrences, options: SnippetOptions = {}): string {
  return renderSnippet(text, snippetWindow(text, occurrences, options));
}

export function snippetWindow(text: string, occurrences: Occurrences, options: SnippetOptions = {}): SnippetWindow {
  const maxChars = options.maxChars ?? 200;
  const spans = occurrences.spans;
  const n = spans.length / 3;
  if (n === 0) return { start: 0, end: Math.min(text.length, maxChars), marks: [] };
  // Two pointers over occurrences: the best run that fits in maxChars.
  let best = { from: 0, to: 0, distinct: 0, hits: 0 };
  const inWindow = new Map<number, number>();
  let left = 0;
  for (let right = 0; right < n; right++) {
    const term = spans[right * 3 + 2]!;
    inWindow.set(term, (inWindow.get(term) ?? 0) + 1);
    while (spans[right * 3 + 1]! - spans[left * 3]! > maxChars) {
      const leftTerm = spans[left * 3 + 2]!;
      const remaining = inWindow.get(leftTerm)! - 1;
      if (remaining === 0) inWindow.delete(leftTerm);
      else inWindow.set(leftTerm, remaining);
      left++;
    }
    const hits = right - left + 1;
    if (inWindow.size > best.distinct || (inWindow.size === best.distinct && hits > best.hits)) {
      best = { from: left, to: right, distinct: inWindow.size, hits };
    }
  }
  const first = spans[best.from * 3]!;
  const last = spans[best.to * 3 + 1]!;
  // Centre the matches in the window.
  const slack = Math.max(0, maxChars - (last - first));
  let start = Math.max(0, first - Math.floor(slack / 2));
  const end = Math.min(text.length, Math.max(last, start + maxChars));
  start = Math.max(0, Math.min(start, end - maxChars));
  const marks: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const s = spans[i * 3]!;
    const e = spans[i * 3 + 1]!;
    if (s >= start && e <= end) marks.push([s, e]);
  }
  return { start, end, marks };
}

/** The window as HTML: ends cut at word boundaries (a mark's edges are boundaries, so no mark is lost), `…` where cut. */
export function renderSnippet(text: string, { start, end, marks }: SnippetWindow): string {
  // Cut points move inwards to word boundaries, so no word is split (marks sit on boundaries already).
  while (start > 0 && start < text.length && isWordChar(text[start - 1]) && isWordChar(text[start])) start++;
  while (end < text.length && end > start && isWordChar(text[end - 1]) && isWordChar(text[end])) end--;
  let out = start > 0 ? "…" : "";
  let at = start;
  for (const [s, e] of marks) {
    if (s < start || e > end) continue;
    out += escapeHtml(text.slice(at, s)) + "<mark>" + escapeHtml(text.slice(s, e)) + "</mark>";
    at = e;
  }
  out += escapeHtml(text.slice(at, end));
  return (start > 0 ? out.replace(/^…\s+/, "…") : out).trimEnd() + (end < text.length ? "…" : "");
}
