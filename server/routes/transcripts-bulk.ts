/**
 * POST /v1/transcripts/bulk: up to 100 transcripts in one request. Stored ones
 * come from the catalog; the others (unknown videos, or stored without the
 * wanted transcript) go to the transcript source (unless fetchMissing is
 * false) a few at a time: at most BULK_FETCH_CONCURRENCY, and at most half
 * of the live-fetch slots, behind single requests. At the request's deadline
 * the answer is what it has, with an error for each id it could not finish.
 * Items and errors keep the order of first occurrence in the request.
 */
import { setMaxListeners } from "node:events";
import PQueue from "p-queue";
import { z } from "zod";
import type { Config } from "../config.js";
import type { StoredTranscript } from "../data/catalog.js";
import { isDeadlineExceeded, untilDeadline } from "../http/deadline.js";
import { HttpError } from "../http/http-error.js";
import { assertJsonContentType, readJsonBody } from "../http/json-body.js";
import type { Route, RouteDeps } from "../http/route.js";
import type { RequestContext } from "../http/context.js";
import { RawJson, safeJson } from "../http/respond.js";
import { elapsedMs } from "../http/timing.js";
import { validate } from "../http/validate.js";
import { errorFields } from "../log.js";
import { langParam, videoIdSchema } from "../schemas/params.js";
import { apiSchemas } from "../schemas/registry.js";
import { sourceHttpError } from "../transcript-source.js";

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
      wordCount: z.int(),
      language: z.string(),
      languageCode: z.string(),
      isGenerated: z.boolean(),
      duration: z.number(),
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
          "video_not_found, transcript_not_found, language_not_available, not_fetched (fetchMissing false), or the source's error code. " +
          "At the request's deadline: deadline_exceeded for ids being fetched then (the fetch goes on and is stored), upstream_busy for ids still waiting for a fetch slot.",
      }),
    detail: z.string(),
  })
  .register(apiSchemas, { id: "BulkError" });

export const BulkResponseSchema = z
  .object({
    requested: z.int().meta({ description: "Distinct video ids requested." }),
    found: z.int().meta({ description: "Transcripts returned." }),
    fetched: z.int().meta({ description: "Transcripts obtained from the source during this request." }),
    transcripts: z.array(BulkItemSchema).meta({ description: "In request order." }),
    errors: z.array(BulkErrorSchema).meta({ description: "Ids that could not be obtained, in request order." }),
    timing: z.object({ totalMs: z.number() }),
  })
  .register(apiSchemas, { id: "BulkResponse" });

type Outcome =
  /** `item` is the serialised result item (UTF-8). */
  | { ok: true; item: Buffer; cached: boolean }
  | { ok: false; code: string; detail: string };

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
    summary: "Transcripts of up to 100 videos",
    description:
      "Needs a plan listed in BULK_PLANS (default: pro). Send Content-Type: application/json. " +
      "Missing transcripts are fetched a few at a time, behind single requests; when the request's deadline (REQUEST_DEADLINE_MS) passes, " +
      "the answer is 200 with the transcripts obtained so far and an errors[] entry (deadline_exceeded or upstream_busy) for each id not finished.",
    body: BulkRequestSchema,
    response: BulkResponseSchema,
    responseDescription: "Transcripts found, and an error entry for every id that could not be obtained.",
    problems: [
      { status: 400, code: "invalid_parameter", description: "The body does not match the schema (each bad field is listed)." },
      { status: 400, code: "too_many_video_ids", description: `More than ${MAX_BULK_IDS} video ids.` },
      { status: 400, code: "invalid_json", description: "The body is not valid JSON." },
      { status: 403, code: "plan_required", description: "The key's plan may not use this endpoint." },
      { status: 413, code: "payload_too_large", description: "The body exceeds MAX_BODY_BYTES." },
      { status: 415, code: "unsupported_media_type", description: "Content-Type is not application/json." },
    ],
  },
  async handle(ctx, deps) {
    assertJsonContentType(ctx.req);
    const raw = await readJsonBody(ctx.req, { maxBytes: deps.config.maxBodyBytes });
    if (isObject(raw) && Array.isArray(raw.videoIds) && raw.videoIds.length > MAX_BULK_IDS) {
      throw new HttpError(400, "too_many_video_ids", `At most ${MAX_BULK_IDS} video ids per request.`, {
        errors: [{ param: "videoIds", message: `must list at most ${MAX_BULK_IDS} video ids` }],
      });
    }
    const { videoIds, fetchMissing, lang } = validate(BulkRequestSchema, raw);
    const distinct = [...new Set(videoIds)];
    const outcomes = await resolveAll(ctx, deps, distinct, lang, fetchMissing);

    const items: Buffer[] = [];
    const errors: unknown[] = [];
    let fetched = 0;
    distinct.forEach((videoId, i) => {
      const outcome = outcomes[i] as Outcome;
      if (!outcome.ok) {
        errors.push({ videoId, code: outcome.code, detail: outcome.detail });
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
    return { body: new RawJson(...parts) };
  },
};

async function resolveAll(
  ctx: RequestContext,
  deps: RouteDeps,
  videoIds: string[],
  lang: string,
  fetchMissing: boolean,
): Promise<Outcome[]> {
  const { catalog, transcriptSource, config, representations } = deps;
  const toFetch: number[] = [];
  const version = catalog.version();
  const outcomes = videoIds.map((videoId, i): Outcome | undefined => {
    const key = `${version}\u0000bulk\u0000${videoId}\u0000${lang.toLowerCase()}`;
    const hit = representations.get(key);
    if (hit !== undefined) return { ok: true, item: hit.bytes, cached: true };
    const lookup = catalog.getTranscript(videoId, lang);
    switch (lookup.kind) {
      case "found":
        return { ok: true, item: representations.put(key, bulkItem(videoId, lookup.stored, true)).bytes, cached: true };
      case "other-languages":
      case "no-transcript":
        // As the single-video route: storage lacks it, the source may have it.
        if (fetchMissing && transcriptSource !== undefined) {
          toFetch.push(i);
          return undefined;
        }
        if (lookup.kind === "no-transcript") return { ok: false, code: "transcript_not_found", detail: "The video is stored but has no transcript." };
        return { ok: false, code: "language_not_available", detail: `Transcripts exist only in: ${lookup.languages.join(", ")}.` };
      case "unknown":
        if (!fetchMissing) return { ok: false, code: "not_fetched", detail: "Not stored, and fetchMissing is false." };
        if (transcriptSource === undefined) return { ok: false, code: "video_not_found", detail: "No video with this id is stored." };
        toFetch.push(i);
        return undefined;
    }
  });
  if (toFetch.length === 0) return outcomes as Outcome[];
  const wait = untilDeadline(ctx.signal, ctx.deadline);
  const limit = bulkFetchLimit(config);
  // Each fetch in flight listens on the signal until it ends; more than 10 is expected, not a leak.
  setMaxListeners(Math.max(10, limit + 1), wait.signal);
  try {
    const queue = new PQueue({ concurrency: limit });
    await Promise.all(
      toFetch.map((i) =>
        queue.add(async () => {
          outcomes[i] = await fetchOne(ctx, deps, videoIds[i] as string, lang, wait.signal);
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

/** The outcome of an id whose wait ended before it had a transcript: the client left, or the deadline passed. */
function stoppedWaiting(reason: unknown): Outcome {
  if (isDeadlineExceeded(reason)) {
    return { ok: false, code: "upstream_busy", detail: "No upstream fetch slot came free before the request's deadline; nothing was fetched. Try again shortly." };
  }
  return { ok: false, code: "aborted", detail: "The request was aborted." };
}

async function fetchOne(
  ctx: RequestContext,
  { transcriptSource, log, representations }: RouteDeps,
  videoId: string,
  lang: string,
  signal: AbortSignal,
): Promise<Outcome> {
  if (transcriptSource === undefined) return { ok: false, code: "video_not_found", detail: "No video with this id is stored." };
  if (signal.aborted) return stoppedWaiting(signal.reason);
  try {
    const result = await transcriptSource.fetch(videoId, lang, { includeMetadata: false, signal, bulk: true });
    return { ok: true, item: representations.put(undefined, bulkItem(videoId, result.stored, false)).bytes, cached: false };
  } catch (error) {
    // The source answers a deadline with its own problem; other aborts come back as the signal's reason.
    if (signal.aborted && error === signal.reason) return stoppedWaiting(error);
    const typed = sourceHttpError(error);
    if (typed !== undefined) return { ok: false, code: typed.code, detail: typed.detail };
    log.error("bulk fetch failed", { requestId: ctx.requestId, videoId, ...errorFields(error) });
    return { ok: false, code: "internal_error", detail: "The transcript could not be fetched. Quote the requestId when reporting it." };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
