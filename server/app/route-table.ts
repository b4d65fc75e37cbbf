/** Every route the server answers, in the order the OpenAPI document lists them. */
import type { Route } from "../routes/route.js";
import { mcpRoute } from "../mcp/mcp-route.js";
import { channelVideosRoute } from "../routes/channel-videos.js";
import { channelsRoute } from "../routes/channels.js";
import { healthRoute, readyRoute } from "../routes/health.js";
import { openapiRoute } from "../routes/openapi.js";
import { searchRoute } from "../routes/search.js";
import { apiIndexRoute, serviceIndexRoute } from "./service-index.js";
import { statsRoute } from "../routes/stats.js";
import { transcriptRoute } from "../routes/transcript.js";
import { transcriptsBulkRoute } from "../routes/transcripts-bulk.js";

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
