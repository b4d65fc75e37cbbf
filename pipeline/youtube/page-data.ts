/**
 * Pulls the JSON blobs a WEB watch page embeds in its scripts
 * (`ytInitialPlayerResponse`, the `chapterRenderer`s of `ytInitialData`).
 * The blobs are followed by more script, so a JSON object is cut out by
 * matching braces outside of strings instead of by a regular expression.
 */
import { asString, dig, textOf } from "./client-context.js";
import type { ChapterRecord } from "../artifact/contract/index.js";

/** The object literal starting at `html[start]` (which must be `{`), or undefined. */
export function extractJsonObject(html: string, start: number): unknown {
  if (html[start] !== "{") return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < html.length; i++) {
    const char = html[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") depth++;
    else if (char === "}") {
      depth--;
      if (depth === 0) {
        try {
          return JSON.parse(html.slice(start, i + 1));
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

/** The page's `ytInitialPlayerResponse`, or undefined when the page has none. */
export function extractInitialPlayerResponse(html: string): unknown {
  const match = /ytInitialPlayerResponse\s*=\s*\{/.exec(html);
  if (!match) return undefined;
  return extractJsonObject(html, match.index + match[0].length - 1);
}

/** Chapters from every `chapterRenderer` on the page, in time order, duplicates dropped. */
export function extractChapters(html: string): ChapterRecord[] {
  const seen = new Map<string, ChapterRecord>();
  const pattern = /"chapterRenderer"\s*:\s*\{/g;
  for (const match of html.matchAll(pattern)) {
    const renderer = extractJsonObject(html, match.index + match[0].length - 1);
    const title = textOf(dig(renderer, "title"));
    const startMillis = Number(dig(renderer, "timeRangeStartMillis"));
    if (title === undefined || !Number.isFinite(startMillis) || startMillis < 0) continue;
    const chapter = { title, startSeconds: startMillis / 1000 };
    seen.set(`${chapter.startSeconds}\u0000${title}`, chapter);
  }
  return [...seen.values()].sort((a, b) => a.startSeconds - b.startSeconds);
}

export interface PageMicroformat {
  publishDate?: string;
  uploadDate?: string;
  category?: string;
  description?: string;
  ownerProfileUrl?: string;
}

export function microformatOf(playerResponse: unknown): PageMicroformat {
  const renderer = dig(playerResponse, "microformat", "playerMicroformatRenderer");
  const out: PageMicroformat = {};
  const publishDate = asString(dig(renderer, "publishDate"));
  const uploadDate = asString(dig(renderer, "uploadDate"));
  const category = asString(dig(renderer, "category"));
  const description = textOf(dig(renderer, "description"));
  const ownerProfileUrl = asString(dig(renderer, "ownerProfileUrl"));
  if (publishDate) out.publishDate = publishDate;
  if (uploadDate) out.uploadDate = uploadDate;
  if (category) out.category = category;
  if (description !== undefined) out.description = description;
  if (ownerProfileUrl) out.ownerProfileUrl = ownerProfileUrl;
  return out;
}
