/** Every route the server answers, in the order the OpenAPI document lists them. */
import type { Route } from "../http/route.js";
import { mcpRoute } from "../mcp/mcp-route.js";
import { channelVideosRoute } from "./channel-videos.js";
import { channelsRoute } from "./channels.js";
import { healthRoute, readyRoute } from "./health.js";
import { openapiRoute } from "./openapi.js";
import { searchRoute } from "./search.js";
import { apiIndexRoute, serviceIndexRoute } from "./service-index.js";
import { statsRoute } from "./stats.js";
import { transcriptRoute } from "./transcript.js";
import { transcriptsBulkRoute } from "./transcripts-bulk.js";

export const ROUTES: readonly Route[] = [
  searchRoute,
  transcriptRoute,
  transcriptsBulkRoute,
  channelsRoute,
  channelVideosRoute,
  statsRoute,
  mcpRoute,
  healthRoute,
  readyRoute,
  openapiRoute,
  serviceIndexRoute,
  apiIndexRoute,
];
