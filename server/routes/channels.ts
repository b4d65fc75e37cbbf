/** GET /v1/channels: every channel, most transcripts first, so channel ids can be found without a search. */
import { z } from "zod";
import type { Catalog } from "../data/catalog.js";
import { parseQuery } from "../http/route-input.js";
import type { Route } from "./route.js";
import { PaginationSchema } from "../schemas/pagination.js";
import { limitParam, offsetParam } from "../schemas/params.js";
import { apiSchemas } from "../schemas/registry.js";

export const ChannelsQuery = z.object({ limit: limitParam, offset: offsetParam });

export const ORDER_DESCRIPTION = "Most transcripts first; ties by channelId (ascending).";

export const ChannelSchema = z
  .object({
    channelId: z.string(),
    title: z.string(),
    videoCount: z.int().min(0).meta({ description: "Stored videos: pagination.total of the channel's video list." }),
    transcriptCount: z.int().min(0).meta({ description: "Videos with a stored transcript, as /v1/stats counts them." }),
  })
  .register(apiSchemas, { id: "Channel" });

export const ChannelsResponseSchema = z
  .object({
    channels: z.array(ChannelSchema).meta({ description: ORDER_DESCRIPTION }),
    pagination: PaginationSchema,
  })
  .register(apiSchemas, { id: "ChannelsResponse" });

export const channelsRoute: Route = {
  method: "GET",
  path: "/v1/channels",
  auth: true,
  doc: {
    operationId: "listChannels",
    tag: "Channels",
    summary: "Every channel, most transcripts first",
    description:
      "Every channel with its title, video count and transcript count, paged with limit and offset as in search. " +
      "Counts include what was fetched live since the build, as /v1/stats does: the counts of all channels add up to its videos and transcripts. " +
      ORDER_DESCRIPTION,
    query: ChannelsQuery,
    response: ChannelsResponseSchema,
    responseDescription: "One page of channels.",
    problems: [{ status: 400, code: "invalid_parameter", description: "limit or offset is malformed, or a query parameter is unknown or given twice." }],
  },
  handle(ctx, { catalog }) {
    const { limit, offset } = parseQuery(ctx, ChannelsQuery);
    return { body: channelsBody(catalog, limit, offset) };
  },
};

/** One page of channels, as REST and the MCP tool `list_channels` answer it. */
export function channelsBody(catalog: Pick<Catalog, "channels">, limit: number, offset: number): z.output<typeof ChannelsResponseSchema> {
  const page = catalog.channels(limit, offset);
  return {
    channels: page.items.map((channel) => ({ ...channel })),
    pagination: { limit, offset, total: page.total, hasMore: offset + page.items.length < page.total },
  };
}
