/**
 * Reads one page of a channel's Videos tab: the items in either shape
 * YouTube serves (`lockupViewModel` now, `videoRenderer` before), the
 * continuation token, and the channel's own metadata.
 */
import { asArray, asString, dig, textOf } from "./client-context.js";
import { continuationItems } from "./continuation-items.js";
import { isViewCountText, parseViewCount } from "./view-count.js";

export interface ChannelVideo {
  videoId: string;
  title: string;
  /** Parsed from the list's text ("1.2M views" is rounded as shown); undefined when the item shows none (live, upcoming). */
  viewCount: number | undefined;
  /** Relative age as shown, e.g. "3 weeks ago"; browse gives no exact dates. */
  publishedText: string | undefined;
  /** Duration as shown, e.g. "5:16". */
  lengthText?: string;
}

export interface ChannelMetadata {
  title: string;
  externalId: string;
  vanityChannelUrl?: string;
}

export interface BrowsePage {
  items: ChannelVideo[];
  continuation?: string;
  metadata?: ChannelMetadata;
}

export function readBrowsePage(json: unknown): BrowsePage {
  const page: BrowsePage = { items: [] };
  const metadata = readMetadata(json);
  if (metadata) page.metadata = metadata;

  for (const entry of pageEntries(json)) {
    const token = asString(dig(entry, "continuationItemRenderer", "continuationEndpoint", "continuationCommand", "token"));
    if (token) {
      page.continuation = token;
      continue;
    }
    const content = dig(entry, "richItemRenderer", "content") ?? entry;
    const item = readLockup(dig(content, "lockupViewModel")) ?? readVideoRenderer(dig(content, "videoRenderer"));
    if (item) page.items.push(item);
  }
  return page;
}

/** Grid entries of a first page (the selected tab with a grid) or of a continuation. */
function pageEntries(json: unknown): unknown[] {
  const appended = continuationItems(json);
  if (appended.length > 0) return appended;
  const tabs = asArray(dig(json, "contents", "twoColumnBrowseResultsRenderer", "tabs"));
  const grids = tabs
    .map((tab) => ({ selected: dig(tab, "tabRenderer", "selected") === true, grid: dig(tab, "tabRenderer", "content", "richGridRenderer", "contents") }))
    .filter((tab) => Array.isArray(tab.grid));
  const chosen = grids.find((tab) => tab.selected) ?? grids[0];
  return asArray(chosen?.grid);
}

function readMetadata(json: unknown): ChannelMetadata | undefined {
  const renderer = dig(json, "metadata", "channelMetadataRenderer");
  const title = asString(dig(renderer, "title"));
  const externalId = asString(dig(renderer, "externalId"));
  if (title === undefined || externalId === undefined) return undefined;
  const vanityChannelUrl = asString(dig(renderer, "vanityChannelUrl"));
  return { title, externalId, ...(vanityChannelUrl ? { vanityChannelUrl } : {}) };
}

function readLockup(lockup: unknown): ChannelVideo | undefined {
  const videoId = asString(dig(lockup, "contentId"));
  if (!videoId) return undefined;
  const type = asString(dig(lockup, "contentType"));
  if (type !== undefined && type !== "LOCKUP_CONTENT_TYPE_VIDEO") return undefined;
  const meta = dig(lockup, "metadata", "lockupMetadataViewModel");
  const parts = asArray(dig(meta, "metadata", "contentMetadataViewModel", "metadataRows"))
    .flatMap((row) => asArray(dig(row, "metadataParts")))
    .map((part) => textOf(dig(part, "text")))
    .filter((text): text is string => text !== undefined && text.length > 0);
  const viewText = parts.find(isViewCountText);
  const publishedText = parts.find((text) => /\bago$|^Streamed|^Premiered/i.test(text));
  const badges = asArray(dig(lockup, "contentImage", "thumbnailViewModel", "overlays")).flatMap((overlay) =>
    asArray(dig(overlay, "thumbnailOverlayBadgeViewModel", "thumbnailBadges")),
  );
  const lengthText = badges.map((badge) => asString(dig(badge, "thumbnailBadgeViewModel", "text"))).find((t) => t && /^\d+(:\d\d)+$/.test(t));
  return {
    videoId,
    title: textOf(dig(meta, "title")) ?? "",
    viewCount: parseViewCount(viewText),
    publishedText,
    ...(lengthText ? { lengthText } : {}),
  };
}

function readVideoRenderer(renderer: unknown): ChannelVideo | undefined {
  const videoId = asString(dig(renderer, "videoId"));
  if (!videoId) return undefined;
  const lengthText = textOf(dig(renderer, "lengthText"));
  return {
    videoId,
    title: textOf(dig(renderer, "title")) ?? "",
    viewCount: parseViewCount(textOf(dig(renderer, "viewCountText"))),
    publishedText: textOf(dig(renderer, "publishedTimeText")),
    ...(lengthText ? { lengthText } : {}),
  };
}
