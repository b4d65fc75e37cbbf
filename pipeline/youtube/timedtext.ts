/**
 * Step 4: the timedtext document of the chosen track, parsed into segments.
 *
 * The default format (no `fmt`) is `<transcript><text start dur>`; `srv3`
 * (`<timedtext><body><p t d>`, milliseconds) is understood too in case
 * YouTube ignores the request. Caption text is escaped twice, so it is
 * XML-decoded here and then HTML-decoded once more, before tags are stripped.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { SegmentRecord } from "../contract.js";
import { foldWhitespace, stripControlCharacters } from "../text.js";
import type { ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { decodeHtmlEntities, decodeXmlEntities } from "./html-entities.js";
import type { TrackChoice } from "./track-choice.js";

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  // Entities are decoded by hand so the XML pass and the HTML pass each run exactly once.
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Keep cue bodies as raw text even if they contain real markup (`<s>` word runs in srv3).
  stopNodes: ["transcript.text", "timedtext.body.p"],
  isArray: (name) => name === "text" || name === "p",
});

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

export function parseTimedtext(xml: string, usedProxy = false): SegmentRecord[] {
  const unparsable = (why: string, cause?: unknown): YouTubeError =>
    new YouTubeError("upstream_unparsable", `The transcript document ${why}`, { usedProxy, cause });
  if (XMLValidator.validate(xml) !== true) throw unparsable("is not well-formed XML");
  let doc: unknown;
  try {
    doc = parser.parse(xml);
  } catch (error) {
    throw unparsable("could not be parsed", error);
  }
  const root = doc as { transcript?: unknown; timedtext?: { body?: unknown } };
  if (root.transcript !== undefined) {
    return childList(root.transcript, "text").flatMap((cue) => toSegment(cue, "start", "dur", 1));
  }
  if (root.timedtext !== undefined) {
    return childList(root.timedtext.body, "p").flatMap((cue) => toSegment(cue, "t", "d", 1000));
  }
  throw unparsable("is neither <transcript> nor <timedtext>");
}

/** An element's repeated children; an empty element parses as "" and has none. */
function childList(element: unknown, name: string): unknown[] {
  if (element === null || typeof element !== "object") return [];
  const children = (element as Record<string, unknown>)[name];
  return Array.isArray(children) ? children : [];
}

function toSegment(cue: unknown, startAttr: string, durAttr: string, divisor: number): SegmentRecord[] {
  const fields = typeof cue === "object" && cue !== null ? (cue as Record<string, unknown>) : {};
  const raw = typeof cue === "string" ? cue : typeof fields["#text"] === "string" ? (fields["#text"] as string) : "";
  const text = cleanCueText(raw);
  if (text.length === 0) return [];
  const start = Number(fields[startAttr]);
  const duration = fields[durAttr] === undefined ? 0 : Number(fields[durAttr]);
  if (!Number.isFinite(start) || start < 0) return [];
  return [
    {
      start: start / divisor,
      duration: Number.isFinite(duration) && duration > 0 ? duration / divisor : 0,
      text,
    },
  ];
}

/** XML decode, HTML decode once more, strip tags, fold whitespace, drop control characters. */
export function cleanCueText(raw: string): string {
  const decoded = decodeHtmlEntities(decodeXmlEntities(raw));
  return foldWhitespace(stripControlCharacters(decoded.replace(/<[^>]*>/g, "")));
}
