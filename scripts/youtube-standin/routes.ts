/**
 * The stand-in's endpoints as plain functions from a parsed request to a
 * reply; the server around them adds counting, faults and the origin rewrite.
 */
import { videoWithoutText, type StandinCorpus } from "./corpus.js";
import type { Endpoint } from "./faults.js";
import { fixtureCaptions } from "./fixture-captions.js";
import type { FixtureFiles } from "./fixtures.js";
import { BAD_REQUEST_BODY, NOT_FOUND_BODY, browsePage, decodeContinuation, resolveUrl } from "./render-browse.js";
import { renderFeed } from "./render-feed.js";
import { decodePlaylistContinuation, missingPlaylist, playlistPage, type StandinPlaylist } from "./render-playlist.js";
import { renderPlayer } from "./render-player.js";
import { cuesOfXml, renderTimedtext, timedtextFormat } from "./render-timedtext.js";
import { renderChannelPage, renderWatchPage } from "./render-watch.js";

export interface Reply {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

export interface RouteContext {
  corpus: StandinCorpus;
  /** Playlists served under browse id `VL` + their id. */
  playlists: ReadonlyMap<string, StandinPlaylist>;
  files: FixtureFiles;
  origin: string;
  nowMs: number;
}

export interface ParsedRequest {
  endpoint: Endpoint;
  url: URL;
  json: unknown;
  videoId?: string;
}

const HTML = "text/html; charset=utf-8";
const JSON_TYPE = "application/json; charset=UTF-8";

/** Which endpoint a method and path belong to, or undefined for an unknown route. */
export function endpointOf(method: string, pathname: string): Endpoint | undefined {
  if (method === "GET" && pathname === "/watch") return "watch";
  if (method === "POST" && pathname === "/youtubei/v1/player") return "player";
  if (method === "GET" && pathname === "/api/timedtext") return "timedtext";
  if (method === "POST" && pathname === "/youtubei/v1/navigation/resolve_url") return "resolve_url";
  if (method === "POST" && pathname === "/youtubei/v1/browse") return "browse";
  if (method === "GET" && pathname === "/feeds/videos.xml") return "feed";
  if (method === "GET" && /^\/(@[^/]+|channel\/[^/]+|c\/[^/]+|user\/[^/]+)\/?$/.test(pathname)) return "channel_page";
  return undefined;
}

export function json(status: number, value: unknown): Reply {
  return { status, contentType: JSON_TYPE, body: JSON.stringify(value) };
}

export function route(ctx: RouteContext, request: ParsedRequest): Reply {
  switch (request.endpoint) {
    case "watch":
      return watch(ctx, request.videoId ?? "");
    case "player":
      return player(ctx, request);
    case "timedtext":
      return timedtext(ctx, request.url);
    case "resolve_url": {
      const url = (request.json as { url?: unknown } | null)?.url;
      if (typeof url !== "string") return json(400, BAD_REQUEST_BODY);
      const resolved = resolveUrl(ctx.corpus, url);
      return resolved ? json(200, resolved) : json(404, NOT_FOUND_BODY);
    }
    case "browse":
      return browse(ctx, request.json);
    case "feed": {
      const channel = ctx.corpus.channel(request.url.searchParams.get("channel_id") ?? "");
      if (!channel) return { status: 404, contentType: HTML, body: "<!DOCTYPE html><title>Error 404 (Not Found)</title>" };
      return { status: 200, contentType: "text/xml; charset=UTF-8", body: renderFeed(ctx.corpus, channel) };
    }
    case "channel_page":
      return channelPage(ctx, request.url.pathname);
  }
}

function watch(ctx: RouteContext, videoId: string): Reply {
  const page = ctx.files.watchPage(videoId);
  if (page !== undefined) return { status: 200, contentType: HTML, body: page };
  return { status: 200, contentType: HTML, body: renderWatchPage(videoWithoutText(ctx.corpus, videoId), videoId, ctx.origin, ctx.nowMs) };
}

function player(ctx: RouteContext, request: ParsedRequest): Reply {
  const body = request.json as { videoId?: unknown; context?: { client?: { clientName?: unknown } } } | null;
  const videoId = body?.videoId;
  if (typeof videoId !== "string") return json(400, BAD_REQUEST_BODY);
  const recorded = ctx.files.playerResponse(videoId);
  if (recorded !== undefined) return { status: 200, contentType: JSON_TYPE, body: recorded };
  const client = body?.context?.client?.clientName === "WEB" ? "WEB" : "ANDROID";
  return json(200, renderPlayer(videoWithoutText(ctx.corpus, videoId), videoId, { origin: ctx.origin, client, nowMs: ctx.nowMs }));
}

/**
 * `tlang` translations are not real: the source text is served with every
 * cue prefixed `[<tlang>] `, so a translation is visibly one.
 */
function timedtext(ctx: RouteContext, url: URL): Reply {
  const params = url.searchParams;
  const videoId = params.get("v") ?? "";
  const lang = params.get("lang") ?? "";
  const isGenerated = params.get("kind") === "asr";
  const tlang = params.get("tlang");
  const format = timedtextFormat(params.get("fmt"));
  let segments;
  if (ctx.files.isFixtureVideo(videoId)) {
    const captions = fixtureCaptions(ctx.files, videoId, lang, isGenerated);
    if (!captions) return { status: 404, contentType: HTML, body: "" };
    if (captions.rawXml !== undefined && format === "xml" && !tlang) {
      return { status: 200, contentType: "text/xml; charset=UTF-8", body: captions.rawXml };
    }
    segments = captions.rawXml !== undefined ? cuesOfXml(captions.rawXml) : captions.segments;
  } else {
    const track = ctx.corpus.video(videoId)?.transcripts.find((t) => t.languageCode === lang && t.isGenerated === isGenerated);
    if (!track) return { status: 404, contentType: HTML, body: "" };
    segments = track.segments;
  }
  if (tlang) segments = segments.map((s) => ({ ...s, text: `[${tlang}] ${s.text}` }));
  const rendered = renderTimedtext(segments, format);
  return { status: 200, contentType: rendered.contentType, body: rendered.body };
}

function browse(ctx: RouteContext, body: unknown): Reply {
  const request = body as { browseId?: unknown; continuation?: unknown } | null;
  if (typeof request?.continuation === "string") {
    const listed = decodePlaylistContinuation(request.continuation);
    if (listed) {
      const playlist = ctx.playlists.get(listed.playlistId);
      return playlist ? json(200, playlistPage(ctx.corpus, playlist, listed.offset, ctx.nowMs)) : json(400, BAD_REQUEST_BODY);
    }
    const cursor = decodeContinuation(request.continuation);
    const channel = cursor && ctx.corpus.channel(cursor.channelId);
    if (!cursor || !channel) return json(400, BAD_REQUEST_BODY);
    return json(200, browsePage(ctx.corpus, channel, cursor.offset, ctx.nowMs));
  }
  if (typeof request?.browseId !== "string") return json(400, BAD_REQUEST_BODY);
  if (request.browseId.startsWith("VL")) {
    const playlist = ctx.playlists.get(request.browseId.slice(2));
    return json(200, playlist ? playlistPage(ctx.corpus, playlist, 0, ctx.nowMs) : missingPlaylist());
  }
  const channel = ctx.corpus.channel(request.browseId);
  if (!channel) return json(404, NOT_FOUND_BODY);
  return json(200, browsePage(ctx.corpus, channel, 0, ctx.nowMs));
}

function channelPage(ctx: RouteContext, pathname: string): Reply {
  const [first, second] = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const channel =
    first === "channel" && second
      ? ctx.corpus.channel(second)
      : first?.startsWith("@")
        ? ctx.corpus.channelByHandle(first)
        : second
          ? ctx.corpus.channelByHandle(`@${second}`)
          : undefined;
  if (!channel) return { status: 404, contentType: HTML, body: "<!DOCTYPE html><title>404 Not Found</title>" };
  return { status: 200, contentType: HTML, body: renderChannelPage(channel) };
}
