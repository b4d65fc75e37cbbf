/**
 * `navigation/resolve_url` and the Videos tab of `browse`: 30 items a page,
 * newest first, continuation tokens, and pages alternating between the
 * current `lockupViewModel` shape and the older `videoRenderer` shape so a
 * client has to read both. Items need no caption text, which a generated
 * corpus can skip generating. View counts and ages are text, as on YouTube.
 */
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { videoWithoutText, type StandinChannel, type StandinCorpus } from "./corpus.js";
import { channelMetadata } from "./render-watch.js";

export const BROWSE_PAGE_SIZE = 30;

export const NOT_FOUND_BODY = {
  error: { code: 404, message: "Requested entity was not found.", errors: [{ message: "Requested entity was not found.", domain: "global", reason: "notFound" }], status: "NOT_FOUND" },
};

export const BAD_REQUEST_BODY = {
  error: { code: 400, message: "Request contains an invalid argument.", errors: [{ message: "Request contains an invalid argument.", domain: "global", reason: "badRequest" }], status: "INVALID_ARGUMENT" },
};

/** The channel a resolve_url `url` names, by `/channel/UC…`, `/@handle`, `/c/name` or `/user/name`. */
export function resolveUrl(corpus: StandinCorpus, url: string): object | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const segments = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const [first, second] = segments;
  let channel: StandinChannel | undefined;
  if (first === "channel" && second) channel = corpus.channel(second);
  else if (first?.startsWith("@")) channel = corpus.channelByHandle(first);
  else if ((first === "c" || first === "user") && second) channel = corpus.channelByHandle(`@${second}`);
  if (!channel) return undefined;
  return {
    responseContext: {},
    endpoint: {
      clickTrackingParams: "IhMIc3RhbmRpbg==",
      commandMetadata: {
        webCommandMetadata: { url: `/${channel.handle}`, webPageType: "WEB_PAGE_TYPE_CHANNEL", rootVe: 3611, apiUrl: "/youtubei/v1/browse" },
      },
      browseEndpoint: { browseId: channel.channelId, canonicalBaseUrl: `/${channel.handle}` },
    },
  };
}

interface Cursor {
  channelId: string;
  offset: number;
}

export function encodeContinuation(cursor: Cursor): string {
  return `4qmFsgK${Buffer.from(JSON.stringify(cursor)).toString("base64url")}`;
}

export function decodeContinuation(token: string): Cursor | undefined {
  if (!token.startsWith("4qmFsgK")) return undefined;
  try {
    const cursor = JSON.parse(Buffer.from(token.slice(7), "base64url").toString("utf8")) as Partial<Cursor>;
    if (typeof cursor.channelId !== "string" || typeof cursor.offset !== "number") return undefined;
    return { channelId: cursor.channelId, offset: cursor.offset };
  } catch {
    return undefined;
  }
}

/**
 * A page of the Videos tab starting at `offset`; the first page also carries
 * the tabs and the channel's metadata. The listing is newest first (the
 * corpus contract), so a page looks up only its own videos: crawling a
 * channel costs one generation per video, not one per video per page.
 */
export function browsePage(corpus: StandinCorpus, channel: StandinChannel, offset: number, nowMs: number): object {
  const videos = channel.videoIds;
  const slice = videos
    .slice(offset, offset + BROWSE_PAGE_SIZE)
    .map((id) => videoWithoutText(corpus, id))
    .filter((v): v is VideoRecord => v !== undefined);
  const pageIndex = Math.floor(offset / BROWSE_PAGE_SIZE);
  const items: object[] = slice.map((v) =>
    pageIndex % 2 === 0 ? { richItemRenderer: { content: lockup(v, nowMs) } } : { richItemRenderer: { content: videoRenderer(v, nowMs) } },
  );
  const next = offset + BROWSE_PAGE_SIZE;
  if (next < videos.length) {
    items.push({
      continuationItemRenderer: {
        trigger: "CONTINUATION_TRIGGER_ON_ITEM_SHOWN",
        continuationEndpoint: { continuationCommand: { token: encodeContinuation({ channelId: channel.channelId, offset: next }), request: "CONTINUATION_REQUEST_TYPE_BROWSE" } },
      },
    });
  }
  if (offset > 0) {
    return { responseContext: {}, onResponseReceivedActions: [{ appendContinuationItemsAction: { continuationItems: items, targetId: "browse-feedUC" } }] };
  }
  const tab = (title: string, selected: boolean, content?: object) => ({
    tabRenderer: { title, selected, ...(content ? { content } : {}), endpoint: { browseEndpoint: { browseId: channel.channelId } } },
  });
  return {
    responseContext: {},
    contents: {
      twoColumnBrowseResultsRenderer: {
        tabs: [tab("Home", false), tab("Videos", true, { richGridRenderer: { contents: items } }), tab("Shorts", false)],
      },
    },
    metadata: { channelMetadataRenderer: channelMetadata(channel) },
  };
}

function lockup(video: VideoRecord, nowMs: number): object {
  return {
    lockupViewModel: {
      contentImage: {
        thumbnailViewModel: {
          image: { sources: [{ url: video.thumbnail, width: 480, height: 270 }] },
          overlays: [{ thumbnailOverlayBadgeViewModel: { thumbnailBadges: [{ thumbnailBadgeViewModel: { text: lengthText(video.lengthSeconds), badgeStyle: "THUMBNAIL_OVERLAY_BADGE_STYLE_DEFAULT" } }], position: "THUMBNAIL_OVERLAY_BADGE_POSITION_BOTTOM_END" } }],
        },
      },
      metadata: {
        lockupMetadataViewModel: {
          title: { content: video.title },
          metadata: {
            contentMetadataViewModel: {
              metadataRows: [{ metadataParts: [{ text: { content: shortViewCount(video.viewCount) } }, { text: { content: relativeAge(video.publishedAt, nowMs) } }] }],
              delimiter: " • ",
            },
          },
        },
      },
      contentId: video.videoId,
      contentType: "LOCKUP_CONTENT_TYPE_VIDEO",
    },
  };
}

function videoRenderer(video: VideoRecord, nowMs: number): object {
  return {
    videoRenderer: {
      videoId: video.videoId,
      thumbnail: { thumbnails: [{ url: video.thumbnail, width: 480, height: 270 }] },
      title: { runs: [{ text: video.title }], accessibility: { accessibilityData: { label: video.title } } },
      publishedTimeText: { simpleText: relativeAge(video.publishedAt, nowMs) },
      lengthText: { simpleText: lengthText(video.lengthSeconds) },
      viewCountText: { simpleText: longViewCount(video.viewCount) },
    },
  };
}

/** "No views", "1 view", "1,234,567 views" (videoRenderer style). */
export function longViewCount(views: number): string {
  if (views === 0) return "No views";
  if (views === 1) return "1 view";
  return `${views.toLocaleString("en-US")} views`;
}

/** "No views", "1 view", "999 views", "1.2K views", "12K views", "3.4M views" (lockupViewModel style). */
export function shortViewCount(views: number): string {
  if (views < 1000) return longViewCount(views);
  const [divisor, suffix] = views >= 1e9 ? [1e9, "B"] : views >= 1e6 ? [1e6, "M"] : [1e3, "K"];
  const value = views / divisor;
  const shown = value < 10 ? Math.floor(value * 10) / 10 : Math.floor(value);
  return `${shown}${suffix} views`;
}

export function lengthText(seconds: number): string {
  const s = Math.round(seconds);
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

export function relativeAge(iso: string, nowMs: number): string {
  const seconds = Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 1000));
  const units: [number, string][] = [[31536000, "year"], [2592000, "month"], [604800, "week"], [86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]];
  for (const [size, name] of units) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? "" : "s"} ago`;
  }
  return "0 seconds ago";
}
