/**
 * The representations of GET /v1/transcript/:videoId: JSON (the Video
 * object), plain text, SubRip and WebVTT. Picked by the `format` parameter,
 * else by `Accept`; an explicit `format` wins.
 */
import { z } from "zod";
import type { StoredTranscript } from "../data/catalog.js";
import { negotiate } from "../http/accept.js";
import { HttpError } from "../problem/http-error.js";
import { toSrt, toText, toVtt } from "./subtitles.js";

export const TRANSCRIPT_FORMATS = ["json", "text", "srt", "vtt"] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** Media type of each format, in the order of preference that breaks ties in `Accept` (`*\/*` → JSON, `text/*` → plain text). */
const MEDIA_TYPES: Record<TranscriptFormat, string> = {
  json: "application/json",
  text: "text/plain",
  vtt: "text/vtt",
  srt: "application/x-subrip",
};

const EXTENSIONS: Record<Exclude<TranscriptFormat, "json">, string> = { text: "txt", srt: "srt", vtt: "vtt" };
const RENDER: Record<Exclude<TranscriptFormat, "json">, (subs: StoredTranscript["transcript"]["subs"]) => string> = {
  text: toText,
  srt: toSrt,
  vtt: toVtt,
};

export const formatParam = z
  .enum(TRANSCRIPT_FORMATS, { error: `must be one of ${TRANSCRIPT_FORMATS.join(", ")}` })
  .optional()
  .meta({
    description:
      "json (default), text (one segment a line), srt (SubRip) or vtt (WebVTT). Without it, the Accept header picks: " +
      "application/json, text/plain, application/x-subrip, text/vtt.",
  });

/** `format` when given, else what `Accept` prefers; 406 when `Accept` takes none of the four. */
export function chooseFormat(format: TranscriptFormat | undefined, accept: string | undefined): TranscriptFormat {
  if (format !== undefined) return format;
  const offered = Object.values(MEDIA_TYPES);
  const chosen = negotiate(accept, offered);
  if (chosen === undefined) {
    throw new HttpError(406, "not_acceptable", `Accept allows none of ${offered.join(", ")}; send one of them, or the format parameter.`);
  }
  return (Object.keys(MEDIA_TYPES) as TranscriptFormat[]).find((f) => MEDIA_TYPES[f] === chosen)!;
}

export interface TextRepresentation {
  body: string;
  contentType: string;
  headers: Record<string, string>;
}

/** A non-JSON representation, with its Content-Type and a download name `<videoId>.<lang>.<ext>`. */
export function renderTranscript(stored: StoredTranscript, format: Exclude<TranscriptFormat, "json">): TextRepresentation {
  // Language codes are letters, digits and hyphens; anything else is left out of the file name.
  const lang = stored.transcript.languageCode.replace(/[^A-Za-z0-9-]/g, "");
  const filename = `${stored.video.videoId}.${lang}.${EXTENSIONS[format]}`;
  return {
    body: RENDER[format](stored.transcript.subs),
    contentType: `${MEDIA_TYPES[format]}; charset=utf-8`,
    headers: { "Content-Disposition": `attachment; filename="${filename}"` },
  };
}
