/** GET /v1/stats: counts describing the database (computed at build time, so cheap). */
import { z } from "zod";
import type { Catalog } from "../data/catalog.js";
import type { Route } from "./route.js";
import { apiSchemas } from "../schemas/registry.js";

export const StatsSchema = z
  .object({
    videos: z.int().min(0),
    transcripts: z.int().min(0),
    totalWords: z.int().min(0),
    avgWordsPerTranscript: z.int().min(0),
    channels: z.int().min(0),
    transcriptsWithVectors: z.int().min(0).meta({
      description: "Transcripts of the artifact set with vectors, searchable with mode=semantic and hybrid (transcripts fetched live get theirs with the next build).",
    }),
  })
  .register(apiSchemas, { id: "Stats" });

export const statsRoute: Route = {
  method: "GET",
  path: "/v1/stats",
  auth: true,
  doc: {
    operationId: "stats",
    tag: "Stats",
    summary: "Counts describing the database",
    description: "Counts computed when the artifact set was built, plus what was fetched live since. No request scans the database.",
    response: StatsSchema,
    responseDescription: "Database statistics.",
    problems: [],
  },
  handle(_ctx, { catalog }) {
    return { body: statsBody(catalog) };
  },
};

/** The counts REST and the MCP tool `get_stats` answer. */
export function statsBody(catalog: Pick<Catalog, "stats">): z.output<typeof StatsSchema> {
  const stats = catalog.stats();
  return {
    videos: stats.videos,
    transcripts: stats.transcripts,
    totalWords: stats.totalWords,
    avgWordsPerTranscript: Math.round(stats.avgWordsPerTranscript),
    channels: stats.channels,
    transcriptsWithVectors: stats.transcriptsWithVectors ?? 0,
  };
}
