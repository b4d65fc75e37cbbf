/**
 * The YouTube client shared by the ingestion pipeline and the server's live
 * fetch. Every URL it requests is built on `origin`, so the same code runs
 * against youtube.com and against the local stand-in.
 */
import { withBlockedRetries } from "./blocked-retry.js";
import { channelFeed, type FeedEntry } from "./channel-feed.js";
import { resolveChannel, type ResolvedChannel } from "./channel-resolve.js";
import { ChannelVideoStream, type ListChannelVideosOptions } from "./channel-videos.js";
import type { ClientContext } from "./client-context.js";
import { fetchTranscript, type FetchTranscriptOptions, type FetchTranscriptResult } from "./fetch-transcript.js";
import { sleepClock, type Sleep } from "./exits/exit-clock.js";
import type { ExitPolicy } from "./exits/exit-policy.js";
import { ExitPool } from "./exits/exit-pool.js";
import { HttpTransport } from "./http-transport.js";
import { PlaylistVideoStream } from "./playlist-videos.js";

export interface YouTubeClientOptions {
  /** Scheme and host of YouTube. Default `https://www.youtube.com`. Caption URLs from the player are moved onto it too. */
  origin?: string;
  /** HTTP(S) proxy URLs, each an exit (exits/), one request per fresh connection. Default none (the direct route is the one exit). Ignored with `exitPool`. */
  proxyUrls?: string[];
  /** The exits to send through, shared with other clients (the pool's own proxies then count, not `proxyUrls`). Default: a pool of `proxyUrls` of its own. */
  exitPool?: ExitPool;
  /** Pacing, in flight and liveness of each exit of the client's own pool (exit-policy.ts); the cool-down comes from `backoffBaseMs` and `backoffMaxMs`. */
  exitPolicy?: Partial<Omit<ExitPolicy, "coolDownMs" | "coolDownMaxMs">>;
  /** Longest wait for a free exit before a call fails (`rate_limited` while all cool, `connection_failed` while all are out), in ms. Default: no limit. */
  maxExitWaitMs?: number;
  /** Limit for each upstream call, headers and body together, in ms. Default 10000. */
  timeoutMs?: number;
  /** Largest response body accepted, in bytes. Default 20 MB (a long transcript is well under 2 MB; a watch page about 1 MB). */
  maxBodyBytes?: number;
  /** Retries of a step that YouTube blocked (bot check, captcha, 429, …), each through an exit that is not resting. Default 2. */
  maxBlockedRetries?: number;
  /** Cool-down of an exit after a block without Retry-After, doubled for each block in a row, plus up to 50 % jitter, in ms. Default 1000. */
  backoffBaseMs?: number;
  /** Cap of one such cool-down, in ms. Default 30000. */
  backoffMaxMs?: number;
  /** User-Agent header. Default a current desktop Chrome. */
  userAgent?: string;
  /** How the client's own pool waits for a resting exit; injectable so tests need not wait (the pool's clock then moves only by what was slept). Default a real, abortable timer on the wall clock. */
  sleep?: Sleep;
  /** Jitter source in [0, 1). Default `Math.random`. */
  random?: () => number;
}

export interface YouTubeClient {
  readonly origin: string;
  /** The exits its calls leave through; `snapshot()` says how each is doing. */
  readonly exits: ExitPool;
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
  const exits =
    options.exitPool ??
    new ExitPool({
      proxyUrls,
      policy: {
        ...options.exitPolicy,
        coolDownMs: nonNegativeInteger("backoffBaseMs", options.backoffBaseMs ?? 1000),
        coolDownMaxMs: nonNegativeInteger("backoffMaxMs", options.backoffMaxMs ?? 30_000),
      },
      ...(options.sleep ? { clock: sleepClock(options.sleep) } : {}),
      ...(options.random ? { random: options.random } : {}),
    });
  const transport = new HttpTransport({
    exits,
    ...(options.maxExitWaitMs === undefined ? {} : { maxExitWaitMs: nonNegativeInteger("maxExitWaitMs", options.maxExitWaitMs) }),
    timeoutMs,
    maxBodyBytes,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
  });
  const ctx: ClientContext = {
    origin,
    transport,
    retryBlocked: (call) => withBlockedRetries(call, { maxBlockedRetries }),
  };
  return {
    origin,
    exits,
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
