/**
 * Turns what a person types for a channel (`UC…` id, `@handle`, or a
 * `/channel/`, `/@`, `/c/`, `/user/` URL) into its channel id, via
 * `navigation/resolve_url`, and names it from the Videos tab's metadata.
 */
import { CHANNEL_ID_PATTERN } from "../artifact/contract/index.js";
import { asString, dig, type ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { postWeb } from "./innertube-web.js";
import { VIDEOS_TAB_PARAMS } from "./channel-videos.js";
import { readBrowsePage } from "./browse-page.js";

export interface ResolvedChannel {
  channelId: string;
  title?: string;
  /** `@handle`, when the channel has one. */
  handle?: string;
}

/** The path to resolve (`/@name`, `/c/name`, …) or the channel id when the input already is one. */
export function channelPathOf(input: string, originHost?: string): { channelId: string } | { path: string } {
  const trimmed = input.trim();
  if (CHANNEL_ID_PATTERN.test(trimmed)) return { channelId: trimmed };
  if (/^@[\w.-]{1,100}$/u.test(trimmed)) return { path: `/${trimmed}` };
  let path: string;
  try {
    const url = new URL(trimmed.startsWith("/") ? `https://www.youtube.com${trimmed}` : trimmed.replace(/^(?!https?:)/, "https://"));
    const known = /(^|\.)youtube\.com$/.test(url.hostname) || url.host === originHost;
    if (!known) throw new Error("not a YouTube URL");
    path = url.pathname.replace(/\/+$/, "");
  } catch {
    throw new YouTubeError("invalid_channel", "Expected a channel id (UC…), an @handle or a YouTube channel URL");
  }
  const channel = /^\/channel\/(UC[A-Za-z0-9_-]{22})(?:\/|$)/.exec(path);
  if (channel?.[1]) return { channelId: channel[1] };
  const named = /^\/(@[^/]+|c\/[^/]+|user\/[^/]+)(?:\/|$)/.exec(path);
  if (named?.[1]) return { path: `/${named[1]}` };
  throw new YouTubeError("invalid_channel", "Expected a channel id (UC…), an @handle or a YouTube channel URL");
}

export async function resolveChannel(ctx: ClientContext, input: string, signal?: AbortSignal): Promise<ResolvedChannel> {
  const target = channelPathOf(input, new URL(ctx.origin).host);
  let channelId: string;
  let handle: string | undefined;
  if ("channelId" in target) {
    channelId = target.channelId;
  } else {
    const { json, usedProxy } = await postWeb(ctx, "navigation/resolve_url", { url: `${ctx.origin}${target.path}` }, signal);
    const browseId = asString(dig(json, "endpoint", "browseEndpoint", "browseId"));
    if (!browseId || !CHANNEL_ID_PATTERN.test(browseId)) {
      throw new YouTubeError("channel_not_found", "The URL does not lead to a channel", { usedProxy });
    }
    channelId = browseId;
    handle = handleOf(asString(dig(json, "endpoint", "browseEndpoint", "canonicalBaseUrl")));
  }
  const { json } = await postWeb(ctx, "browse", { browseId: channelId, params: VIDEOS_TAB_PARAMS }, signal);
  const metadata = readBrowsePage(json).metadata;
  handle ??= handleOf(metadata?.vanityChannelUrl);
  return { channelId, ...(metadata ? { title: metadata.title } : {}), ...(handle ? { handle } : {}) };
}

function handleOf(url: string | undefined): string | undefined {
  const match = /\/(@[^/?#]+)/.exec(url ?? "");
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}
