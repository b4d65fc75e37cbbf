/**
 * A channel's newest uploads (YouTube keeps 15) from its Atom feed: the one
 * cheap source of exact publish dates, which browse only gives as "3 weeks ago".
 */
import type { ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { readXml } from "./read-xml.js";
import { toUtcIso } from "./video-record.js";

export interface FeedEntry {
  videoId: string;
  title: string;
  /** ISO 8601 UTC, `…Z`. */
  publishedAt: string;
  viewCount: number | undefined;
}

export async function channelFeed(ctx: ClientContext, channelId: string, signal?: AbortSignal): Promise<FeedEntry[]> {
  const response = await ctx.retryBlocked(
    () =>
      ctx.transport.send({
        method: "GET",
        url: `${ctx.origin}/feeds/videos.xml?channel_id=${encodeURIComponent(channelId)}`,
        ...(signal ? { signal } : {}),
      }),
    signal,
  );
  const { usedProxy, status } = response;
  if (status === 404) throw new YouTubeError("channel_not_found", "YouTube has no feed for this channel", { status, usedProxy });
  if (status >= 400) throw new YouTubeError("upstream_status", `The feed answered HTTP ${status}`, { status, usedProxy });
  return parseChannelFeed(response.body, usedProxy);
}

const STATISTICS = "feed/entry/media:group/media:community/media:statistics";

export function parseChannelFeed(xml: string, usedProxy = false): FeedEntry[] {
  const entries: FeedEntry[] = [];
  let root: string | undefined;
  /** The entry being read: the text of its fields so far, and its view count. */
  let entry: { fields: Record<string, string>; views: number | undefined } | undefined;
  try {
    readXml(xml, {
      open(path, attributes) {
        if (path.length === 1) root = path[0];
        else if (path.length === 2 && root === "feed" && path[1] === "entry") entry = { fields: {}, views: undefined };
        else if (entry && path.join("/") === STATISTICS) {
          const views = Number(attributes["views"]);
          entry.views = attributes["views"] !== undefined && Number.isFinite(views) ? views : undefined;
        }
      },
      text(text, path) {
        // The entry's own fields: yt:videoId, published, title (not media:group's media:title).
        if (entry && path.length === 3) entry.fields[path[2]!] = (entry.fields[path[2]!] ?? "") + text;
      },
      close(path) {
        if (entry && path.length === 2) {
          const field = (name: string): string => (entry!.fields[name] ?? "").trim();
          const videoId = field("yt:videoId");
          const publishedAt = toUtcIso(field("published"));
          if (videoId && publishedAt) entries.push({ videoId, title: field("title"), publishedAt, viewCount: entry.views });
          entry = undefined;
        }
      },
    });
  } catch (error) {
    throw new YouTubeError("upstream_unparsable", "The channel feed is not well-formed XML", { usedProxy, cause: error });
  }
  if (root !== "feed") throw new YouTubeError("upstream_unparsable", "The channel feed has no <feed>", { usedProxy });
  return entries;
}
