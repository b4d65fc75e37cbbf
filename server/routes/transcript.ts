/**
 * GET /v1/transcript/:videoId: the full transcript of one video, as
 * `resolveTranscript` finds it (storage, else a live fetch).
 */
import { z } from "zod";
import { languageKey } from "../../pipeline/artifact/language.js";
import { ifNoneMatchHits } from "../http/etag.js";
import { parseParams, parseQuery } from "../http/route-input.js";
import { elapsedMs } from "../http/timing.js";
import type { Route, RouteResult } from "../http/route.js";
import type { RequestContext } from "../http/context.js";
import { booleanFlagParam, langParam, videoIdSchema } from "../schemas/params.js";
import { resolveTranscript } from "../resolve-transcript.js";
import { withFields, type CachedRepresentation } from "./representation-cache.js";
import { VideoSchema, videoBody } from "./transcript-body.js";

export const TranscriptParams = z.object({ videoId: videoIdSchema });
export const TranscriptQuery = z.object({
  lang: langParam,
  includeMetadata: booleanFlagParam.meta({ description: "true adds lengthSeconds, description, keywords, category and chapters." }),
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
      "Live-fetch failures are problems too: 404 for videos without a transcript (video_unavailable, transcripts_disabled, unplayable), " +
      "403 age_restricted, 502/504 when YouTube fails (with Retry-After where a retry may help), 503 upstream_busy when too many fetches wait. " +
      "A live fetch is bounded by the request's deadline (REQUEST_DEADLINE_MS): still waiting for a fetch slot then, 503 upstream_busy; " +
      "still being fetched, 504 deadline_exceeded (the fetch goes on and is stored). " +
      "Responses carry a weak ETag; send it back in If-None-Match to get 304.",
    params: TranscriptParams,
    query: TranscriptQuery,
    response: VideoSchema,
    responseDescription: "The video and its transcript.",
    problems: [
      { status: 400, code: "invalid_video_id", description: "The video id is not 11 characters of A-Z, a-z, 0-9, _ or -." },
      { status: 404, code: "video_not_found", description: "The video is not stored and cannot be fetched (live fetching is off)." },
      { status: 404, code: "transcript_not_found", description: "The video is stored but has no transcript." },
      {
        status: 404,
        code: "language_not_available",
        description: "The video has no transcript in the requested language; availableLanguages lists those it has.",
      },
    ],
    liveFetch: true,
    etag: true,
  },
  async handle(ctx, deps) {
    const { videoId } = parseParams(ctx, TranscriptParams, "invalid_video_id");
    const { lang, includeMetadata } = parseQuery(ctx, TranscriptQuery);
    // Only stored transcripts are cached, under the catalog's version: a hit is always current.
    const key = `${deps.catalog.version()}\u0000${videoId}\u0000${languageKey(lang)}\u0000${includeMetadata}`;
    const hit = deps.representations.get(key);
    if (hit !== undefined) return respond(ctx, hit);
    const resolved = await resolveTranscript(deps.catalog, deps.transcriptSource, videoId, lang, {
      includeMetadata,
      signal: ctx.signal,
      deadline: ctx.deadline,
    });
    const { stored, cached, method, usedProxy } = resolved;
    const body = videoBody(stored, { includeMetadata, cached, method, usedProxy });
    return respond(ctx, deps.representations.put(cached ? key : undefined, body));
  },
};

function respond(ctx: RequestContext, representation: CachedRepresentation): RouteResult {
  const headers = { ETag: representation.etag, "Cache-Control": TRANSCRIPT_CACHE_CONTROL };
  if (ifNoneMatchHits(ctx.req.headers["if-none-match"], representation.etag)) return { status: 304, headers };
  return { headers, body: withFields(representation, { timing: { totalMs: elapsedMs(ctx) } }) };
}
