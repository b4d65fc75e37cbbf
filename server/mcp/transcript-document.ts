/**
 * What `get_transcript` reads in pieces: the segments inside an optional time
 * window, rendered in the format asked for by the same formatters as
 * `GET /v1/transcript?format=` (server/formats/), so both speak the same text.
 */
import type { Sub } from "../../pipeline/artifact/segments/index.js";
import { toSrt, toText, toVtt } from "../formats/subtitles.js";

/** Formats rendered as one text; `json` is the segments themselves. */
export const TEXT_FORMATS = ["text", "srt", "vtt"] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];
export const DOCUMENT_FORMATS = ["text", "srt", "vtt", "json"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

const RENDER: Record<TextFormat, (subs: readonly Sub[]) => string> = { text: toText, srt: toSrt, vtt: toVtt };

export function renderTranscript(subs: readonly Sub[], format: TextFormat): string {
  return RENDER[format](subs);
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
