/**
 * Step 4: the timedtext document of the chosen track, parsed into segments.
 *
 * The default format (no `fmt`) is `<transcript><text start dur>`; `srv3`
 * (`<timedtext><body><p t d>`, milliseconds) is understood too in case
 * YouTube ignores the request. Caption text is escaped twice, so it is
 * XML-decoded here and then HTML-decoded once more, before tags are stripped.
 */
import type { SegmentRecord } from "../artifact/contract/index.js";
import { foldWhitespace, stripControlCharacters } from "../artifact/text/index.js";
import type { ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { decodeHtmlEntities } from "./html-entities.js";
import { readXml, type XmlEvents } from "./read-xml.js";
import type { TrackChoice } from "./track-choice.js";

/** Builds the timedtext URL: the baseUrl moved onto our origin, without `fmt`, plus `tlang` for a translation. */
export function timedtextUrl(origin: string, choice: TrackChoice): string {
  let url = choice.track.baseUrl;
  if (url.startsWith("/")) url = origin + url;
  else url = origin + url.slice(new URL(url).origin.length);
  url = url.replace(/&fmt=[^&]*/g, "").replace(/\?fmt=[^&]*&?/, "?");
  if (choice.translateTo) url += `&tlang=${encodeURIComponent(choice.translateTo.languageCode)}`;
  return url;
}

export async function fetchTimedtext(
  ctx: ClientContext,
  choice: TrackChoice,
  options: { cookie?: string; signal?: AbortSignal },
): Promise<{ segments: SegmentRecord[]; usedProxy: boolean }> {
  if (choice.track.baseUrl.includes("&exp=xpe")) {
    throw new YouTubeError("po_token_required", "This caption track needs a proof-of-origin token", {});
  }
  const response = await ctx.transport.send({
    method: "GET",
    url: timedtextUrl(ctx.origin, choice),
    headers: { "accept-language": "en-US", ...(options.cookie ? { cookie: options.cookie } : {}) },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const { usedProxy } = response;
  if (response.status >= 400) {
    throw new YouTubeError("upstream_status", `The timedtext endpoint answered HTTP ${response.status}`, {
      status: response.status,
      usedProxy,
    });
  }
  if (response.body.trim().length === 0) {
    throw new YouTubeError("empty_transcript", "YouTube answered the transcript request with an empty body", { usedProxy });
  }
  const segments = parseTimedtext(response.body, usedProxy);
  if (segments.length === 0) {
    throw new YouTubeError("empty_transcript", "The transcript document has no text", { usedProxy });
  }
  return { segments, usedProxy };
}

/** The cue elements of either format: where they sit, their time attributes, and the unit of those. */
const FORMATS = {
  transcript: { path: ["transcript", "text"], start: "start", duration: "dur", divisor: 1 },
  timedtext: { path: ["timedtext", "body", "p"], start: "t", duration: "d", divisor: 1000 },
} as const;

export function parseTimedtext(xml: string, usedProxy = false): SegmentRecord[] {
  const unparsable = (why: string, cause?: unknown): YouTubeError =>
    new YouTubeError("upstream_unparsable", `The transcript document ${why}`, { usedProxy, cause });
  let format: (typeof FORMATS)[keyof typeof FORMATS] | undefined;
  const segments: SegmentRecord[] = [];
  /** The cue being read: its attributes and its text so far (that of nested elements such as srv3's `<s>` included). */
  let cue: { attributes: Record<string, string>; text: string } | undefined;
  const events: XmlEvents = {
    open(path, attributes) {
      if (path.length === 1) format = FORMATS[path[0] as keyof typeof FORMATS];
      else if (format && cue === undefined && samePath(path, format.path)) cue = { attributes, text: "" };
    },
    text(text) {
      if (cue) cue.text += text;
    },
    close(path) {
      if (cue && format && samePath(path, format.path)) {
        const segment = toSegment(cue.attributes, cue.text, format);
        if (segment) segments.push(segment);
        cue = undefined;
      }
    },
  };
  try {
    readXml(xml, events);
  } catch (error) {
    throw unparsable("is not well-formed XML", error);
  }
  if (format === undefined) throw unparsable("is neither <transcript> nor <timedtext>");
  return segments;
}

function samePath(path: readonly string[], wanted: readonly string[]): boolean {
  return path.length === wanted.length && path.every((name, i) => name === wanted[i]);
}

function toSegment(
  attributes: Record<string, string>,
  text: string,
  format: { start: string; duration: string; divisor: number },
): SegmentRecord | undefined {
  const cleaned = cleanCueText(text);
  if (cleaned.length === 0) return undefined;
  const start = Number(attributes[format.start]);
  const durationText = attributes[format.duration];
  const duration = durationText === undefined ? 0 : Number(durationText);
  if (!Number.isFinite(start) || start < 0) return undefined;
  return {
    start: start / format.divisor,
    duration: Number.isFinite(duration) && duration > 0 ? duration / format.divisor : 0,
    text: cleaned,
  };
}

/** Cue text after the XML decode: HTML-decoded once more, tags stripped, whitespace folded, control characters dropped. */
export function cleanCueText(xmlDecoded: string): string {
  const decoded = decodeHtmlEntities(xmlDecoded);
  const untagged = decoded.includes("<") ? decoded.replace(/<[^>]*>/g, "") : decoded;
  return foldWhitespace(stripControlCharacters(untagged));
}
