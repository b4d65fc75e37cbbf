/**
 * GET /v1/transcript/:videoId: the full transcript of one video, as
 * `resolveTranscript` finds it (storage, else a live fetch).
 */
import { z } from "zod";
import { parseSearchQuery, type ParsedQuery } from "../search/query.js";
import { matchingSegments } from "../search/snippet/moments.js";
import { indexFromSubs } from "../search/snippet/segment-index.js";
import { chooseFormat, formatParam, renderTranscript, type TranscriptFormat } from "../formats/transcript-format.js";
import { ifNoneMatchHits, weakEtag } from "../http/etag.js";
import { HttpError } from "../problem/http-error.js";
import { RawBody, safeJson } from "../http/respond.js";
import { parseParams, parseQuery } from "../http/route-input.js";
import { elapsedMs } from "../http/timing.js";
import type { Route, RouteResult } from "./route.js";
import type { RequestContext } from "../http/context.js";
import type { StoredTranscript } from "../data/catalog.js";
import { booleanFlagParam, langParam, queryTextParam, trackParam, videoIdSchema } from "../schemas/params.js";
import { resolveTranscript } from "../live/resolve-transcript.js";
import { representationKey, withFields, withTiming, type CachedRepresentation } from "./representation-cache.js";
import { VideoSchema, videoBody } from "./transcript-body.js";

export const TranscriptParams = z.object({ videoId: videoIdSchema });
export const TranscriptQuery = z.object({
  lang: langParam,
  track: trackParam,
  includeMetadata: booleanFlagParam.meta({ description: "true adds lengthSeconds, description, keywords, category and chapters." }),
  format: formatParam,
  q: queryTextParam.optional().meta({
    description: "Search words, as for /v1/search: the response's matches lists the indexes of the segments (in transcript.subs) where a match begins. JSON only.",
  }),
});

/** Clients may reuse a transcript for a while; `private` because responses depend on the caller's key. */
export const TRANSCRIPT_CACHE_CONTROL = "private, max-age=300";

export const transcriptRoute: Route = {
  method: "GET",
  path: "/v1/transcript/:videoId",
  auth: true,
  doc: {
    operationId: "getTranscript",
    tag: "Transcripts",
    summary: "Full transcript of one video",
    description:
      "Served from storage when stored (cached: true); otherwise fetched live from YouTube and stored (cached: false). " +
      "track picks the manual or the auto-generated track of the language; one that is not stored is fetched live as a missing language is. " +
      "Live-fetch failures are problems too: 404 for videos without a transcript (video_unavailable, transcripts_disabled, unplayable), " +
      "403 age_restricted, 502/504 when YouTube fails (with Retry-After where a retry may help), 503 upstream_busy when too many fetches wait. " +
      "A live fetch is bounded by the request's deadline (REQUEST_DEADLINE_MS): still waiting for a fetch slot then, 503 upstream_busy; " +
      "still being fetched, 504 deadline_exceeded (the fetch goes on and is stored). " +
      "Responses carry a weak ETag; send it back in If-None-Match to get 304.",
    params: TranscriptParams,
    query: TranscriptQuery,
    response: VideoSchema,
    responseDescription: "The video and its transcript; or, by format or Accept, the transcript as plain text, SubRip or WebVTT (with Content-Disposition).",
    textResponses: ["text/plain", "text/vtt", "application/x-subrip"],
    problems: [
      { status: 400, code: "invalid_video_id", description: "The video id is not 11 characters of A-Z, a-z, 0-9, _ or -." },
      { status: 404, code: "video_not_found", description: "The video is not stored and cannot be fetched (live fetching is off)." },
      { status: 406, code: "not_acceptable", description: "Without format, Accept allows none of application/json, text/plain, text/vtt, application/x-subrip." },
      { status: 404, code: "transcript_not_found", description: "The video is stored but has no transcript." },
      {
        status: 404,
        code: "language_not_available",
        description: "The video has no transcript in the requested language; availableLanguages lists those it has.",
      },
      {
        status: 404,
        code: "track_not_available",
        description: "The video has a transcript in the requested language, but not of the requested track (manual or auto-generated).",
      },
    ],
    liveFetch: true,
    etag: true,
  },
  async handle(ctx, deps) {
    const { videoId } = parseParams(ctx, TranscriptParams, "invalid_video_id");
    const query = parseQuery(ctx, TranscriptQuery);
    const { lang, track, includeMetadata } = query;
    const format = chooseFormat(query.format, ctx.req.headers.accept);
    if (query.q !== undefined && format !== "json") {
      throw new HttpError(400, "invalid_parameter", "Invalid parameter: q.", { errors: [{ param: "q", message: "applies to the json format only" }] });
    }
    const parsed = query.q === undefined ? undefined : parseSearchQuery(query.q);
    // Only stored transcripts are cached, under the catalog's version: a hit is always current.
    const variant = format === "json" ? String(includeMetadata) : format;
    const key = representationKey(deps.catalog.version(), { videoId, lang, track, variant });
    const hit = deps.representations.get(key);
    // The matches need the text: with q, the transcript is read even when its representation is cached.
    if (hit !== undefined && parsed === undefined) return respond(ctx, hit, format);
    const resolved = await resolveTranscript(deps.catalog, deps.transcriptSource, videoId, lang, {
      includeMetadata,
      track,
      signal: ctx.signal,
      deadline: ctx.deadline,
    });
    const { stored, cached, method, usedProxy } = resolved;
    const cacheKey = cached ? key : undefined;
    if (format !== "json") {
      const { body, ...text } = renderTranscript(stored, format);
      return respond(ctx, deps.representations.putText(cacheKey, body, text), format);
    }
    const representation = hit ?? deps.representations.put(cacheKey, videoBody(stored, { includeMetadata, cached, method, usedProxy }));
    return parsed === undefined ? respond(ctx, representation, format) : respondWithMatches(ctx, representation, stored, parsed);
  },
};

function respond(ctx: RequestContext, representation: CachedRepresentation, format: TranscriptFormat, extra?: Record<string, unknown>): RouteResult {
  // Vary: Accept, since without format the representation depends on it.
  const headers = { ETag: representation.etag, "Cache-Control": TRANSCRIPT_CACHE_CONTROL, Vary: "Accept", ...representation.text?.headers };
  if (ifNoneMatchHits(ctx.req.headers["if-none-match"], representation.etag)) return { status: 304, headers };
  if (format !== "json" && representation.text) return { headers, body: new RawBody(representation.bytes), contentType: representation.text.contentType };
  const body = extra === undefined ? withTiming(representation, elapsedMs(ctx)) : withFields(representation, { ...extra, timing: { totalMs: elapsedMs(ctx) } });
  return { headers, body };
}

/** The JSON representation with `matches`: the segments where a match of `parsed` begins; its own ETag. */
function respondWithMatches(ctx: RequestContext, representation: CachedRepresentation, stored: StoredTranscript, parsed: ParsedQuery): RouteResult {
  const matches = matchingSegments(stored.transcript.script, indexFromSubs(stored.transcript.subs), parsed);
  const etag = weakEtag(`${representation.etag}${safeJson(matches)}`);
  return respond(ctx, { ...representation, etag }, "json", { matches });
}
