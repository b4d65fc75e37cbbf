/**
 * Assembles the contract's VideoRecord from the ANDROID player's
 * `videoDetails` and the WEB page's microformat and chapters, so the
 * pipeline and the live fetch store exactly the same shape.
 */
import { type SegmentRecord, VideoRecord } from "../artifact/contract/index.js";
import { asArray, asString, dig } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { extractChapters, extractInitialPlayerResponse, microformatOf } from "./page-data.js";
import type { TrackChoice } from "./track-choice.js";

/**
 * `publishedAt` when neither the page's publishDate nor its uploadDate is
 * there. The epoch is deliberately recognisable as "unknown" and sorts last
 * in newest-first listings, where "now" would push the video to the top.
 */
export const UNKNOWN_PUBLISHED_AT = "1970-01-01T00:00:00Z";

export interface VideoRecordInput {
  videoId: string;
  playerResponse: unknown;
  pageHtml: string;
  choice: TrackChoice;
  segments: SegmentRecord[];
  includeMetadata: boolean;
  usedProxy: boolean;
}

export function buildVideoRecord(input: VideoRecordInput): VideoRecord {
  const details = dig(input.playerResponse, "videoDetails");
  const pagePlayer = extractInitialPlayerResponse(input.pageHtml);
  const microformat = microformatOf(pagePlayer);
  const shortDescription = asString(dig(details, "shortDescription"));
  const keywords = asArray(dig(details, "keywords")).filter((k): k is string => typeof k === "string");
  const handle = /\/(@[^/?#]+)/.exec(microformat.ownerProfileUrl ?? "")?.[1];

  const candidate: VideoRecord = {
    videoId: input.videoId,
    channelId: asString(dig(details, "channelId")) ?? "",
    channelTitle: asString(dig(details, "author")) ?? "",
    ...(handle ? { channelHandle: decodeURIComponent(handle) } : {}),
    title: asString(dig(details, "title")) ?? "",
    viewCount: toCount(dig(details, "viewCount")),
    publishedAt: toUtcIso(microformat.publishDate) ?? toUtcIso(microformat.uploadDate) ?? UNKNOWN_PUBLISHED_AT,
    thumbnail: bestThumbnail(dig(details, "thumbnail", "thumbnails")),
    lengthSeconds: toCount(dig(details, "lengthSeconds")),
    ...(shortDescription ? { description: shortDescription } : {}),
    ...(keywords.length > 0 ? { keywords } : {}),
    transcripts: [
      {
        language: input.choice.language,
        languageCode: input.choice.languageCode,
        isGenerated: input.choice.isGenerated,
        segments: input.segments,
      },
    ],
  };
  if (input.includeMetadata) {
    if (microformat.description) candidate.description = microformat.description;
    const chapters = extractChapters(input.pageHtml);
    if (chapters.length > 0) candidate.chapters = chapters;
    if (microformat.category) candidate.category = microformat.category;
  }

  const checked = VideoRecord.safeParse(candidate);
  if (!checked.success) {
    const fields = checked.error.issues.map((issue) => issue.path.join(".")).join(", ");
    throw new YouTubeError("upstream_unparsable", `The video details are incomplete (${fields})`, {
      usedProxy: input.usedProxy,
      cause: checked.error,
    });
  }
  return checked.data;
}

/** `2018-08-02T06:00:08-07:00` → `2018-08-02T13:00:08Z`; a bare date counts as midnight UTC. */
export function toUtcIso(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

function toCount(value: unknown): number {
  const n = typeof value === "number" ? value : Number(asString(value) ?? NaN);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0;
}

/** The largest thumbnail; YouTube lists them small to large but that is not promised. */
function bestThumbnail(thumbnails: unknown): string {
  let best = "";
  let bestArea = -1;
  for (const thumbnail of asArray(thumbnails)) {
    const url = asString(dig(thumbnail, "url"));
    if (!url) continue;
    const area = Number(dig(thumbnail, "width") ?? 0) * Number(dig(thumbnail, "height") ?? 0);
    if (area > bestArea) {
      best = url;
      bestArea = area;
    }
  }
  return best;
}
