/**
 * A transcript's segments as SubRip (.srt), WebVTT (.vtt) or plain text.
 *
 * Captions from YouTube overlap (auto-generated ones roll: each line stays
 * up until the one after next starts) and some last 0 s. Both subtitle
 * formats get the same cues, none overlapping: segments that start together
 * become one cue of several lines; each cue ends where the next one starts
 * if it would run past it; a cue left without duration (a 0 s segment)
 * lasts until the next cue, or LAST_CUE_MIN_MS when it is the last.
 */
import type { Sub } from "../../pipeline/artifact/segments/index.js";

export interface Cue {
  startMs: number;
  endMs: number;
  /** One or more lines, none empty. */
  lines: string[];
}

/** How long a last cue of 0 s is shown. */
export const LAST_CUE_MIN_MS = 1000;

export function cuesOf(subs: readonly Sub[]): Cue[] {
  const segments = subs
    .map((sub, order) => {
      const startMs = Math.max(0, Math.round(Number(sub.offset) * 1000));
      return { startMs, endMs: startMs + Math.max(0, Math.round(Number(sub.duration) * 1000)), lines: linesOf(sub.text), order };
    })
    .filter((segment) => segment.lines.length > 0)
    .sort((a, b) => a.startMs - b.startMs || a.order - b.order);
  const cues: Cue[] = [];
  for (const segment of segments) {
    const last = cues[cues.length - 1];
    if (last !== undefined && last.startMs === segment.startMs) {
      last.lines.push(...segment.lines);
      last.endMs = Math.max(last.endMs, segment.endMs);
    } else cues.push({ startMs: segment.startMs, endMs: segment.endMs, lines: segment.lines });
  }
  cues.forEach((cue, i) => {
    const next = cues[i + 1];
    if (next !== undefined) cue.endMs = Math.min(cue.endMs, next.startMs);
    if (cue.endMs <= cue.startMs) cue.endMs = next?.startMs ?? cue.startMs + LAST_CUE_MIN_MS;
  });
  return cues;
}

/** SubRip: cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line after each. */
export function toSrt(subs: readonly Sub[]): string {
  return cuesOf(subs)
    .map((cue, i) => `${i + 1}\n${timestamp(cue.startMs, ",")} --> ${timestamp(cue.endMs, ",")}\n${cue.lines.map(srtLine).join("\n")}\n`)
    .join("\n");
}

/** WebVTT: the `WEBVTT` header, `HH:MM:SS.mmm` timings, text with `&`, `<` and `>` escaped (so `-->` cannot occur in it). */
export function toVtt(subs: readonly Sub[]): string {
  const cues = cuesOf(subs).map((cue) => `${timestamp(cue.startMs, ".")} --> ${timestamp(cue.endMs, ".")}\n${cue.lines.map(escapeVtt).join("\n")}\n`);
  return `WEBVTT\n\n${cues.join("\n")}`;
}

/** The segments' texts, one a line. */
export function toText(subs: readonly Sub[]): string {
  return subs.map((sub) => linesOf(sub.text).join(" ")).filter((line) => line !== "").map((line) => `${line}\n`).join("");
}

/** `HH:MM:SS<sep>mmm`; hours grow past two digits rather than wrap. */
export function timestamp(ms: number, separator: "," | "."): string {
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor(ms / 60_000) % 60;
  const seconds = Math.floor(ms / 1000) % 60;
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}${separator}${pad(ms % 1000, 3)}`;
}

/** A cue's text lines: a blank line would end the cue, so there are none. */
function linesOf(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

const VTT_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

function escapeVtt(line: string): string {
  return line.replace(/[&<>]/g, (c) => VTT_ESCAPES[c]!);
}

/** SubRip has no escaping; `-->` in a text line could be read as a timing line, so it is written `->`. */
function srtLine(line: string): string {
  // "--->" would become "-->" again in one pass.
  while (line.includes("-->")) line = line.replaceAll("-->", "->");
  return line;
}
