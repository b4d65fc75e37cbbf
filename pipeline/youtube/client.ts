/**
 * The YouTube client shared by the ingestion pipeline and the server's live
 * fetch. Every URL it requests is built on `origin`, so the same code runs
 * against youtube.com and against the local stand-in.
 */
import { withBlockedRetries, realSleep, type Sleep } from "./blocked-retry.js";
import { channelFeed, type FeedEntry } from "./channel-feed.js";
import { resolveChannel, type ResolvedChannel } from "./channel-resolve.js";
import { ChannelVideoStream, type ListChannelVideosOptions } from "./channel-videos.js";
import type { ClientContext } from "./client-context.js";
import { fetchTranscript, type FetchTranscriptOptions, type FetchTranscriptResult } from "./fetch-transcript.js";
import { HttpTransport } from "./http-transport.js";
import { PlaylistVideoStream } from "./playlist-videos.js";

export interface YouTubeClientOptions {
  /** Scheme and host of YouTube. Default `https://www.youtube.com`. Caption URLs from the player are moved onto it too. */
  origin?: string;
  /** HTTP(S) proxy URLs, used round-robin, one per request, each on a fresh connection. Default none (direct). */
  proxyUrls?: string[];
  /** Limit for each upstream call, headers and body together, in ms. Default 10000. */
  timeoutMs?: number;
  /** Largest response body accepted, in bytes. Default 20 MB (a long transcript is well under 2 MB; a watch page about 1 MB). */
  maxBodyBytes?: number;
  /** Retries of a step that YouTube blocked (bot check, captcha, 429), each through the next proxy. Default 2. */
  maxBlockedRetries?: number;
  /** Delay before the first such retry, doubled for each further one, plus up to 50 % jitter, in ms. Default 1000. */
  backoffBaseMs?: number;
  /** Cap of any single retry delay, in ms. Default 30000. */
  backoffMaxMs?: number;
  /** User-Agent header. Default a current desktop Chrome. */
  userAgent?: string;
  /** Waits between retries; injectable so tests need not wait. Default a real, abortable timer. */
  sleep?: Sleep;
  /** Jitter source in [0, 1). Default `Math.random`. */
  random?: () => number;
}

export interface YouTubeClient {
  readonly origin: string;
  fetchTranscript(videoId: string, options: FetchTranscriptOptions): Promise<FetchTranscriptResult>;
  resolveChannel(input: string, options?: { signal?: AbortSignal }): Promise<ResolvedChannel>;
  /** Async iterable over the whole Videos tab; its `metadata` is set once the first page has arrived. */
  listChannelVideos(channelId: string, options?: ListChannelVideosOptions): ChannelVideoStream;
  channelFeed(channelId: string, options?: { signal?: AbortSignal }): Promise<FeedEntry[]>;
  /** Async iterable over a playlist's videos, each with its uploader's channel id; its `title` is set once the first page has arrived. */
  listPlaylistVideos(playlistId: string, options?: { signal?: AbortSignal }): PlaylistVideoStream;
  /** Closes idle keep-alive connections (there are some only without proxies). */
  close(): Promise<void>;
}

export const DEFAULT_USER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export function createYouTubeClient(options: YouTubeClientOptions = {}): YouTubeClient {
  const origin = validateOrigin(options.origin ?? "https://www.youtube.com");
  const timeoutMs = positiveInteger("timeoutMs", options.timeoutMs ?? 10_000);
  const maxBodyBytes = positiveInteger("maxBodyBytes", options.maxBodyBytes ?? 20 * 1024 * 1024);
  const maxBlockedRetries = nonNegativeInteger("maxBlockedRetries", options.maxBlockedRetries ?? 2);
  const proxyUrls = (options.proxyUrls ?? []).map(validateProxy);
  const transport = new HttpTransport({
    proxyUrls,
    timeoutMs,
    maxBodyBytes,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
  });
  const retry = {
    maxBlockedRetries,
    backoffBaseMs: nonNegativeInteger("backoffBaseMs", options.backoffBaseMs ?? 1000),
    backoffMaxMs: nonNegativeInteger("backoffMaxMs", options.backoffMaxMs ?? 30_000),
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
  };
  const ctx: ClientContext = {
    origin,
    transport,
    retryBlocked: (call, signal) => withBlockedRetries(call, { ...retry, ...(signal ? { signal } : {}) }),
  };
  return {
    origin,
    fetchTranscript: (videoId, fetchOptions) => fetchTranscript(ctx, videoId, fetchOptions),
    resolveChannel: (input, callOptions) => resolveChannel(ctx, input, callOptions?.signal),
    listChannelVideos: (channelId, listOptions) => new ChannelVideoStream(ctx, channelId, listOptions),
    channelFeed: (channelId, callOptions) => channelFeed(ctx, channelId, callOptions?.signal),
    listPlaylistVideos: (playlistId, listOptions) => new PlaylistVideoStream(ctx, playlistId, listOptions),
    close: () => transport.close(),
  };
}

function validateOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError('Expected the "origin" option to be an absolute http(s) URL');
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || (url.pathname !== "/" && url.pathname !== "")) {
    throw new TypeError('Expected the "origin" option to be a scheme and host only, like https://www.youtube.com');
  }
  return url.origin;
}

function validateProxy(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {
    // fall through to the message below
  }
  throw new TypeError('Expected every entry of the "proxyUrls" option to be an http(s) URL');
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`Expected the "${name}" option to be a positive integer`);
  return value;
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`Expected the "${name}" option to be a non-negative integer`);
  return value;
}
