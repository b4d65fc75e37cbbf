/**
 * The MCP tools over the corpus: each validates its arguments with the REST
 * parameters' own schemas and answers with the REST body (server/routes/),
 * so search, channel pages, bulk and stats have one implementation.
 * `get_transcript` is in transcript-tool.ts.
 */
import { z } from "zod";
import { assertEntitled } from "../auth/authenticate.js";
import { validate } from "../http/validate.js";
import { channelVideosBody, ChannelVideosResponseSchema } from "../routes/channel-videos.js";
import { channelsBody, ChannelsResponseSchema, ORDER_DESCRIPTION } from "../routes/channels.js";
import { SearchQuery, SearchResponseSchema, searchBody } from "../routes/search.js";
import { statsBody, StatsSchema } from "../routes/stats.js";
import { BulkRequestSchema, BulkResponseSchema, bulkBody, MAX_BULK_IDS } from "../routes/transcripts-bulk.js";
import { channelIdSchema, langParam, limitParam, offsetParam, trackParam } from "../schemas/params.js";
import { clock, count, plainSnippet } from "./readable.js";
import type { Tool } from "./tool.js";
import { transcriptTool } from "./transcript-tool.js";
import { videoIdOf, watchUrl } from "./video-ref.js";

const AT = { rootName: "arguments" };

/** The REST query's schema, fields and rules across them alike, refusing unknown arguments. */
const SearchArguments = SearchQuery.strict();

export const searchTool: Tool = {
  name: "search_transcripts",
  description:
    "Full-text search over the stored transcripts. Words are ANDed; \"quoted words\" match as a phrase. Exact-phrase matches rank first, " +
    "then BM25 with title and channel-name boosts, ties by views. Each hit has a snippet (HTML-escaped, matches in <mark>). " +
    "Page with limit and offset (pagination.hasMore); narrow with the filter arguments, each described in the input schema. Read a hit's transcript with get_transcript. " +
    "mode=semantic finds moments by meaning (other words than the query's), mode=hybrid fuses both; the default is keyword.",
  input: SearchArguments,
  output: SearchResponseSchema,
  annotations: { title: "Search transcripts", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { deps }) {
    const body = await searchBody(deps.catalog, validate(SearchArguments, args, AT), deps.embedders);
    return { structured: body, text: searchText(body) };
  },
};

function searchText(body: z.output<typeof SearchResponseSchema>): string {
  const { pagination: page, results } = body;
  const note = body.fallback === undefined ? "" : `Note: ${body.fallback.detail}\n`;
  if (results.length === 0) return `${note}Query: ${body.query} — no matching transcript${page.offset > 0 ? ` at offset ${page.offset}` : ""}.`;
  const lines = [
    ...(note === "" ? [] : [note.trimEnd()]),
    `Query: ${body.query} — ${page.totalExact ? "" : "about "}${count(page.total)} matching transcripts; hits ${page.offset + 1}–${page.offset + results.length}` +
      `${page.hasMore ? ` (more: offset ${page.offset + page.limit})` : ""}.`,
  ];
  results.forEach((hit, i) => {
    // Hits that carry the moment of their match (startSeconds, url, other moments) link to it.
    const moment = hit as { startSeconds?: number; url?: string; moments?: { startSeconds: number }[] };
    const at = moment.startSeconds === undefined ? "" : ` at ${clock(moment.startSeconds)}`;
    lines.push(
      "",
      `${page.offset + i + 1}. ${hit.title} — ${hit.channelTitle} (${count(hit.viewCount)} views)`,
      `   videoId ${hit.videoId}${at}: ${moment.url ?? watchUrl(hit.videoId)}`,
      `   ${plainSnippet(hit.snippet)}`,
    );
    if (moment.moments !== undefined && moment.moments.length > 0) lines.push(`   also at ${moment.moments.map((m) => clock(m.startSeconds)).join(", ")}`);
  });
  return lines.join("\n");
}

const BulkArguments = z.strictObject({
  videoIds: z.array(z.string()).meta({ description: `1..${MAX_BULK_IDS} video ids or YouTube links; duplicates are collapsed (first occurrence kept).` }),
  fetchMissing: BulkRequestSchema.shape.fetchMissing,
  lang: langParam,
  track: trackParam,
});

export const bulkTool: Tool = {
  name: "get_transcripts",
  description:
    `The transcripts (text, without timings) of up to ${MAX_BULK_IDS} videos at once; more is an error (too_many_video_ids), not cut. ` +
    "Each id is in transcripts or in errors (with the code a single request gets), in request order. " +
    "Videos not stored are fetched from YouTube unless fetchMissing is false. Needs a plan listed in BULK_PLANS (plan_required otherwise).",
  input: BulkArguments,
  output: BulkResponseSchema,
  annotations: { title: "Get many transcripts", readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, { ctx, deps }) {
    assertEntitled(ctx.key!, deps.clock(), deps.config.bulkPlans);
    const videoIds = args.videoIds;
    // Links become ids; the rest (the count first: too_many_video_ids) is the REST route's own validation.
    const raw = Array.isArray(videoIds) ? { ...args, videoIds: videoIds.map((v: unknown) => (typeof v === "string" ? videoIdOf(v) : v)) } : args;
    const body = JSON.parse((await bulkBody(ctx, deps, raw)).text) as z.output<typeof BulkResponseSchema>;
    return { structured: body, text: bulkText(body) };
  },
};

function bulkText(body: z.output<typeof BulkResponseSchema>): string {
  const lines = [`${body.found} of ${body.requested} transcripts${body.fetched > 0 ? ` (${body.fetched} fetched from YouTube now)` : ""}.`];
  for (const error of body.errors) lines.push(`${error.videoId}: ${error.code} — ${error.detail}`);
  for (const item of body.transcripts) {
    const t = item.transcript;
    lines.push("", `## ${item.title} — ${item.channelTitle} (videoId ${item.videoId}, ${t.language}, ${count(t.wordCount)} words)`, t.script);
  }
  return lines.join("\n");
}

const ChannelsArguments = z.strictObject({ limit: limitParam, offset: offsetParam });

export const channelsTool: Tool = {
  name: "list_channels",
  description:
    `Every stored channel with its title, video count and transcript count (fetched-live ones included). ${ORDER_DESCRIPTION} ` +
    "Page with limit and offset. A channelId found here lists its videos with list_channel_videos, or narrows search_transcripts (channel).",
  input: ChannelsArguments,
  output: ChannelsResponseSchema,
  annotations: { title: "List the channels", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run(args, { deps }) {
    const { limit, offset } = validate(ChannelsArguments, args, AT);
    const body = channelsBody(deps.catalog, limit, offset);
    const page = body.pagination;
    const lines = [
      body.channels.length === 0
        ? `No channels at offset ${page.offset} (${count(page.total)} in all).`
        : `Channels ${page.offset + 1}–${page.offset + body.channels.length} of ${count(page.total)}, most transcripts first.`,
    ];
    for (const channel of body.channels) {
      lines.push(`${channel.title} (${channel.channelId}): ${count(channel.transcriptCount)} transcripts, ${count(channel.videoCount)} videos`);
    }
    if (page.hasMore) lines.push(`More: offset ${page.offset + page.limit}.`);
    return { structured: body, text: lines.join("\n") };
  },
};

const ChannelArguments = z.strictObject({ channelId: channelIdSchema, limit: limitParam, offset: offsetParam });

export const channelTool: Tool = {
  name: "list_channel_videos",
  description: "A channel's stored videos, newest first, with whether each has a transcript. Page with limit and offset. Unknown channel: channel_not_found.",
  input: ChannelArguments,
  output: ChannelVideosResponseSchema,
  annotations: { title: "List a channel's videos", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run(args, { deps }) {
    const { channelId, limit, offset } = validate(ChannelArguments, args, AT);
    const body = channelVideosBody(deps.catalog, channelId, limit, offset);
    const page = body.pagination;
    const lines = [`${body.channelTitle} (${body.channelId}): videos ${page.offset + 1}–${page.offset + body.videos.length} of ${count(page.total)}, newest first.`];
    for (const video of body.videos) {
      const transcript = video.transcript === null ? "no transcript" : `${video.transcript.languageCode}, ${count(video.transcript.wordCount)} words`;
      lines.push(`${video.publishedAt.slice(0, 10)}  ${video.videoId}  ${video.title} (${count(video.viewCount)} views; ${transcript})`);
    }
    if (page.hasMore) lines.push(`More: offset ${page.offset + page.limit}.`);
    return { structured: body, text: lines.join("\n") };
  },
};

const NoArguments = z.strictObject({});

export const statsTool: Tool = {
  name: "get_stats",
  description: "Counts of what is stored: videos, transcripts, words, channels (including what was fetched live since the last build).",
  input: NoArguments,
  output: StatsSchema,
  annotations: { title: "Corpus statistics", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run(args, { deps }) {
    validate(NoArguments, args, AT);
    const body = statsBody(deps.catalog);
    return {
      structured: body,
      text:
        `${count(body.videos)} videos in ${count(body.channels)} channels; ${count(body.transcripts)} transcripts, ` +
        `${count(body.totalWords)} words (${count(body.avgWordsPerTranscript)} per transcript on average).`,
    };
  },
};

/** Every tool, in the order tools/list gives them. */
export const TOOLS: readonly Tool[] = [searchTool, transcriptTool, bulkTool, channelsTool, channelTool, statsTool];
