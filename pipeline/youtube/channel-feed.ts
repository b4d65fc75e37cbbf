/**
 * A channel's newest uploads (YouTube keeps 15) from its Atom feed: the one
 * cheap source of exact publish dates, which browse only gives as "3 weeks ago".
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { decodeXmlEntities } from "./html-entities.js";
import { toUtcIso } from "./video-record.js";

export interface FeedEntry {
  videoId: string;
  title: string;
  /** ISO 8601 UTC, `…Z`. */
  publishedAt: string;
  viewCount: number | undefined;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === "entry",
});

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

export function parseChannelFeed(xml: string, usedProxy = false): FeedEntry[] {
  if (XMLValidator.validate(xml) !== true) {
    throw new YouTubeError("upstream_unparsable", "The channel feed is not well-formed XML", { usedProxy });
  }
  const feed = (parser.parse(xml) as { feed?: { entry?: unknown[] } }).feed;
  if (feed === undefined) throw new YouTubeError("upstream_unparsable", "The channel feed has no <feed>", { usedProxy });
  return (feed.entry ?? []).flatMap((raw) => {
    const entry = raw as Record<string, unknown>;
    const videoId = text(entry["yt:videoId"]);
    const publishedAt = toUtcIso(text(entry["published"]));
    if (!videoId || !publishedAt) return [];
    const stats = (entry["media:group"] as Record<string, unknown> | undefined)?.["media:community"] as
      | Record<string, unknown>
      | undefined;
    const views = Number((stats?.["media:statistics"] as Record<string, unknown> | undefined)?.["@views"]);
    return [
      {
        videoId,
        title: decodeXmlEntities(text(entry["title"]) ?? ""),
        publishedAt,
        viewCount: Number.isFinite(views) ? views : undefined,
      },
    ];
  });
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object") {
    const inner = (value as Record<string, unknown>)["#text"];
    return typeof inner === "string" ? inner : undefined;
  }
  return undefined;
}
