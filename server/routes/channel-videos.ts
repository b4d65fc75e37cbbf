/** GET /v1/channels/:channelId/videos: a channel's indexed videos, newest first. */
import { z } from "zod";
import type { Catalog } from "../data/catalog.js";
import { HttpError } from "../problem/http-error.js";
import { parseParams, parseQuery } from "../http/route-input.js";
import type { Route } from "./route.js";
import { PaginationSchema } from "../schemas/pagination.js";
import { channelIdSchema, limitParam, offsetParam } from "../schemas/params.js";
import { apiSchemas } from "../schemas/registry.js";

export const ChannelParams = z.object({ channelId: channelIdSchema });
export const ChannelQuery = z.object({ limit: limitParam, offset: offsetParam });

export const ChannelVideoSchema = z
  .object({
    videoId: z.string(),
    title: z.string(),
    viewCount: z.int().min(0),
    publishedAt: z.string().meta({ description: "ISO 8601 UTC." }),
    hasTranscript: z.boolean(),
    transcript: z
      .object({ languageCode: z.string(), wordCount: z.int().min(0), isGenerated: z.boolean() })
      .nullable()
      .meta({ description: "null when hasTranscript is false." }),
  })
  .register(apiSchemas, { id: "ChannelVideo" });

export const ChannelVideosResponseSchema = z
  .object({
    channelId: z.string(),
    channelTitle: z.string(),
    videos: z.array(ChannelVideoSchema).meta({ description: "Newest first." }),
    pagination: PaginationSchema,
  })
  .register(apiSchemas, { id: "ChannelVideosResponse" });

export const channelVideosRoute: Route = {
  method: "GET",
  path: "/v1/channels/:channelId/videos",
  auth: true,
  doc: {
    operationId: "channelVideos",
    tag: "Channels",
    summary: "A channel's indexed videos, newest first",
    description:
      "The videos of one indexed channel, newest first, paged with limit and offset as in search. " +
      "A video without a stored transcript is listed with hasTranscript false and transcript null.",
    params: ChannelParams,
    query: ChannelQuery,
    response: ChannelVideosResponseSchema,
    responseDescription: "One page of the channel's videos.",
    problems: [
      { status: 400, code: "invalid_parameter", description: "channelId, limit or offset is malformed, or a query parameter is unknown or given twice." },
      { status: 404, code: "channel_not_found", description: "No channel with this id is indexed." },
    ],
  },
  handle(ctx, { catalog }) {
    const { channelId } = parseParams(ctx, ChannelParams);
    const { limit, offset } = parseQuery(ctx, ChannelQuery);
    return { body: channelVideosBody(catalog, channelId, limit, offset) };
  },
};

/** One page of a channel's videos, as REST and the MCP tool `list_channel_videos` answer it; 404 for an unknown channel. */
export function channelVideosBody(
  catalog: Pick<Catalog, "channelVideos">,
  channelId: string,
  limit: number,
  offset: number,
): z.output<typeof ChannelVideosResponseSchema> {
  const page = catalog.channelVideos(channelId, limit, offset);
  if (page === undefined) throw new HttpError(404, "channel_not_found", "No channel with this id is indexed.");
  return {
    channelId,
    channelTitle: page.channelTitle,
    videos: page.items.map((item) => ({
      videoId: item.videoId,
      title: item.title,
      viewCount: item.viewCount,
      publishedAt: item.publishedAt,
      hasTranscript: item.hasTranscript,
      transcript: item.transcript === null ? null : { ...item.transcript },
    })),
    pagination: { limit, offset, total: page.total, hasMore: offset + page.items.length < page.total },
  };
}
