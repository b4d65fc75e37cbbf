/**
 * What `get_transcript` reads in pieces: the segments inside an optional time
 * window, rendered in the format asked for. `renderTranscript` is the one
 * place a format is rendered; the transcript formats of the REST API
 * (server/formats/) replace it as they arrive, so both speak the same text.
 */
import type { Sub } from "../../pipeline/artifact/segments.js";

/** Formats rendered as one text; `json` is the segments themselves. */
export const TEXT_FORMATS = ["text"] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];
export const DOCUMENT_FORMATS = ["text", "json"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** Plain text: one segment a line. */
export function renderTranscript(subs: readonly Sub[], _format: TextFormat): string {
  return subs.map((sub) => `${sub.text.replace(/\s*\n\s*/g, " ")}\n`).join("");
}

/** The segments that overlap [startSeconds, endSeconds); either end may be open. */
export function segmentsInWindow(subs: readonly Sub[], startSeconds: number | undefined, endSeconds: number | undefined): Sub[] {
  if (startSeconds === undefined && endSeconds === undefined) return [...subs];
  const from = startSeconds ?? 0;
  const to = endSeconds ?? Infinity;
  return subs.filter((sub) => {
    const start = Number(sub.offset);
    const end = start + Number(sub.duration);
    return start < to && (end > from || start >= from);
  });
}
