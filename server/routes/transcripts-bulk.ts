/**
 * POST /v1/transcripts/bulk: up to 100 transcripts in one request, each
 * resolved as a single request resolves it (server/live/resolve-transcript.ts):
 * every stored lookup first, then the misses (unless fetchMissing is false)
 * a few at a time: at most BULK_FETCH_CONCURRENCY, and at most half
 * of the live-fetch slots, behind single requests. At the request's deadline
 * the answer is what it has, with an error for each id it could not finish.
 * Items and errors keep the order of first occurrence in the request.
 */
import { setMaxListeners } from "node:events";
import PQueue from "p-queue";
import { z } from "zod";
import type { TrackKind } from "../../pipeline/artifact/contract/index.js";
import type { Config } from "../config.js";
import type { StoredTranscript } from "../data/catalog.js";
import { isDeadlineExceeded, untilDeadline } from "../http/deadline.js";
import { HttpError } from "../problem/http-error.js";
import { assertJsonContentType, readJsonBody } from "../http/json-body.js";
import type { Route, RouteDeps } from "./route.js";
import type { RequestContext } from "../http/context.js";
import { RawJson, safeJson } from "../http/respond.js";
import { elapsedMs } from "../http/timing.js";
import { validate } from "../http/validate.js";
import { errorFields, type Logger } from "../log.js";
import { langParam, trackParam, videoIdSchema } from "../schemas/params.js";
import { apiSchemas } from "../schemas/registry.js";
import { upstreamBusyError } from "../live/upstream-problem.js";
import { fetchLive, lookupStored, type LiveFetch } from "../live/resolve-transcript.js";
import type { TranscriptSource } from "../live/transcript-source.js";
import { representationKey, type RepresentationCache } from "./representation-cache.js";

export const MAX_BULK_IDS = 100;

const COMMA = Buffer.from(",");

export const BulkRequestSchema = z
  .strictObject(
    {
      videoIds: z
        .array(videoIdSchema, { error: "must be an array of video ids" })
        .min(1, "must list at least one video id")
        .max(MAX_BULK_IDS, `must list at most ${MAX_BULK_IDS} video ids`)
        .meta({ description: `1..${MAX_BULK_IDS} video ids; duplicates are collapsed (first occurrence kept).` }),
      fetchMissing: z
        .boolean({ error: "must be true or false" })
        .default(true)
        .meta({ description: "Fetch videos that are not stored from the source. Default true." }),
      lang: langParam,
      track: trackParam,
    },
    { error: "must be a JSON object" },
  )
  .register(apiSchemas, { id: "BulkRequest" });

export const BulkItemSchema = z
  .object({
    videoId: z.string(),
    title: z.string(),
    channelId: z.string(),
    channelTitle: z.string(),
    cached: z.boolean().meta({ description: "false when fetched from the source during this request." }),
    transcript: z.object({
      script: z.string(),
      wordCount: z.int().min(0),
      language: z.string(),
      languageCode: z.string(),
      isGenerated: z.boolean(),
      duration: z.number().min(0),
    }),
  })
  .register(apiSchemas, { id: "BulkItem" });

export const BulkErrorSchema = z
  .object({
    videoId: z.string(),
    code: z
      .string()
      .meta({
        description:
          "video_not_found, transcript_not_found, language_not_available, track_not_available, not_fetched (fetchMissing false), or the source's error code. " +
          "At the request's deadline: deadline_exceeded for ids being fetched then (the fetch goes on and is stored), upstream_busy for ids still waiting for a fetch slot.",
      }),
    detail: z.string(),
    availableLanguages: z
      .array(z.string())
      .optional()
      .meta({ description: "With language_not_available (the codes the video has) and transcripts_disabled (empty), as in the single request's problem." }),
  })
  .register(apiSchemas, { id: "BulkError" });

export const BulkResponseSchema = z
  .object({
    requested: z.int().min(0).meta({ description: "Distinct video ids requested." }),
    found: z.int().min(0).meta({ description: "Transcripts returned." }),
    fetched: z.int().min(0).meta({ description: "Transcripts obtained from the source during this request." }),
    transcripts: z.array(BulkItemSchema).meta({ description: "In request order." }),
    errors: z.array(BulkErrorSchema).meta({ description: "Ids that could not be obtained, in request order." }),
    timing: z.object({ totalMs: z.number().min(0) }),
  })
  .register(apiSchemas, { id: "BulkResponse" });

type Outcome =
  /** `item` is the serialised result item (UTF-8). */
  | { ok: true; item: Buffer; cached: boolean }
  | { ok: false; code: string; detail: string; availableLanguages?: unknown[] };

/** The result item of one transcript, as the bulk answer lists it (no subs). */
function bulkItem(videoId: string, stored: StoredTranscript, cached: boolean): object {
  const { video, transcript } = stored;
  return {
    videoId,
    title: video.title,
    channelId: video.channelId,
    channelTitle: video.channelTitle,
    cached,
    transcript: {
      script: transcript.script,
      wordCount: transcript.wordCount,
      language: transcript.language,
      languageCode: transcript.languageCode,
      isGenerated: transcript.isGenerated,
      duration: transcript.duration,
    },
  };
}

export const transcriptsBulkRoute: Route = {
  method: "POST",
  path: "/v1/transcripts/bulk",
  auth: true,
  plans: (config) => config.bulkPlans,
  doc: {
    operationId: "bulkTranscripts",
    tag: "Transcripts",
    summary: "Transcripts of up to 100 videos",
    description:
      "Needs a plan listed in BULK_PLANS (default: pro). Send Content-Type: application/json. " +
      "Missing transcripts are fetched a few at a time, behind single requests; when the request's deadline (REQUEST_DEADLINE_MS) passes, " +
      "the answer is 200 with the transcripts obtained so far and an errors[] entry (deadline_exceeded or upstream_busy) for each id not finished.",
    body: BulkRequestSchema,
    response: BulkResponseSchema,
    responseDescription: "Transcripts found, and an error entry for every id that could not be obtained.",
    problems: [
      { status: 400, code: "invalid_parameter", description: "The body does not match the schema: a field is missing, malformed or unknown (each is listed)." },
      { status: 400, code: "too_many_video_ids", description: `More than ${MAX_BULK_IDS} video ids.` },
    ],
  },
  async handle(ctx, deps) {
    assertJsonContentType(ctx.req);
    const raw = await readJsonBody(ctx.req, { maxBytes: deps.config.maxBodyBytes });
    return { body: await bulkBody(ctx, deps, raw) };
  },
};

/**
 * The answer to a bulk request body (validated here: `too_many_video_ids`,
 * then the schema), as REST sends it and the MCP tool `get_transcripts` returns it.
 */
export async function bulkBody(ctx: RequestContext, deps: RouteDeps, raw: unknown): Promise<RawJson> {
  if (isObject(raw) && Array.isArray(raw.videoIds) && raw.videoIds.length > MAX_BULK_IDS) {
    throw new HttpError(400, "too_many_video_ids", `At most ${MAX_BULK_IDS} video ids per request.`, {
      errors: [{ param: "videoIds", message: `must list at most ${MAX_BULK_IDS} video ids` }],
    });
  }
  const { videoIds, fetchMissing, lang, track } = validate(BulkRequestSchema, raw);
  const distinct = [...new Set(videoIds)];
  const outcomes = await resolveAll(ctx, deps, distinct, lang, track, fetchMissing);

  const items: Buffer[] = [];
  const errors: unknown[] = [];
  let fetched = 0;
  distinct.forEach((videoId, i) => {
    const outcome = outcomes[i] as Outcome;
    if (!outcome.ok) {
      const { ok: _ok, ...error } = outcome;
      errors.push({ videoId, ...error });
      return;
    }
    if (!outcome.cached) fetched++;
    items.push(outcome.item);
  });
  // Items are serialised (and cached) one by one; the answer is assembled around their bytes without copying them.
  const head = safeJson({ requested: distinct.length, found: items.length, fetched }).slice(0, -1);
  const tail = safeJson({ errors, timing: { totalMs: elapsedMs(ctx) } }).slice(1);
  const parts: (string | Buffer)[] = [`${head},"transcripts":[`];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(`],${tail}`);
  return new RawJson(...parts);
}

async function resolveAll(
  ctx: RequestContext,
  deps: RouteDeps,
  videoIds: string[],
  lang: string,
  track: TrackKind,
  fetchMissing: boolean,
): Promise<Outcome[]> {
  const { catalog, transcriptSource, config, representations } = deps;
  const live: LiveFetch = !fetchMissing ? "not-requested" : transcriptSource === undefined ? "off" : "on";
  const toFetch: { i: number; languageStored: boolean }[] = [];
  const version = catalog.version();
  const outcomes = videoIds.map((videoId, i): Outcome | undefined => {
    const key = representationKey(version, { videoId, lang, track, variant: "bulk" });
    const hit = representations.get(key);
    if (hit !== undefined) return { ok: true, item: hit.bytes, cached: true };
    const answer = lookupStored(catalog, videoId, lang, live, track);
    switch (answer.kind) {
      case "found":
        return { ok: true, item: representations.put(key, bulkItem(videoId, answer.transcript.stored, true)).bytes, cached: true };
      case "problem":
        return failed(answer.error);
      case "miss":
        toFetch.push({ i, languageStored: answer.languageStored });
        return undefined;
    }
  });
  if (toFetch.length === 0 || transcriptSource === undefined) return outcomes as Outcome[];
  const wait = untilDeadline(ctx.signal, ctx.deadline);
  const limit = bulkFetchLimit(config);
  // Each fetch in flight listens on the signal until it ends; more than 10 is expected, not a leak.
  setMaxListeners(Math.max(10, limit + 1), wait.signal);
  try {
    const queue = new PQueue({ concurrency: limit });
    await Promise.all(
      toFetch.map(({ i, languageStored }) =>
        queue.add(async () => {
          const request = { videoId: videoIds[i] as string, lang, track, languageStored };
          outcomes[i] = await fetchOne(ctx, deps.log, transcriptSource, request, wait.signal, representations);
        }),
      ),
    );
  } finally {
    wait.clear();
  }
  return outcomes as Outcome[];
}

/**
 * Misses one bulk request fetches at once: BULK_FETCH_CONCURRENCY, but never
 * more than half of the live-fetch slots (at least one), so one bulk leaves
 * slots free for single requests.
 */
export function bulkFetchLimit(config: Pick<Config, "bulkFetchConcurrency" | "liveFetchConcurrency">): number {
  return Math.min(config.bulkFetchConcurrency, Math.max(1, Math.floor(config.liveFetchConcurrency / 2)));
}

/** The error entry of an id: the code and detail a single request for it gets, and its `availableLanguages` when the problem has them. */
function failed(error: HttpError): Outcome {
  const { availableLanguages } = error.extensions;
  return { ok: false, code: error.code, detail: error.detail, ...(Array.isArray(availableLanguages) ? { availableLanguages } : {}) };
}

/** The outcome of an id whose wait ended before it had a transcript: the client left, or the deadline passed. */
function stoppedWaiting(reason: unknown): Outcome {
  if (isDeadlineExceeded(reason)) return failed(upstreamBusyError("deadline"));
  return { ok: false, code: "aborted", detail: "The request was aborted." };
}

async function fetchOne(
  ctx: RequestContext,
  log: Logger,
  source: TranscriptSource,
  { videoId, lang, track, languageStored }: { videoId: string; lang: string; track: TrackKind; languageStored: boolean },
  signal: AbortSignal,
  representations: RepresentationCache,
): Promise<Outcome> {
  if (signal.aborted) return stoppedWaiting(signal.reason);
  try {
    const fetched = await fetchLive(source, videoId, lang, { includeMetadata: false, track, languageStored, signal, bulk: true });
    return { ok: true, item: representations.put(undefined, bulkItem(videoId, fetched.stored, false)).bytes, cached: false };
  } catch (error) {
    if (error instanceof HttpError) return failed(error);
    // The source answers a deadline with its own problem; other aborts come back as the signal's reason.
    if (signal.aborted && error === signal.reason) return stoppedWaiting(error);
    log.error("bulk fetch failed", { requestId: ctx.requestId, videoId, ...errorFields(error) });
    return { ok: false, code: "internal_error", detail: "The transcript could not be fetched. Quote the requestId when reporting it." };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
