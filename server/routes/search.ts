/** GET /v1/search: full-text search over stored transcripts. */
import { z } from "zod";
import { parseQuery } from "../http/route-input.js";
import type { Route } from "../http/route.js";
import { PaginationSchema } from "../schemas/pagination.js";
import { channelIdSchema, limitParam, minViewsParam, offsetParam, queryTextParam } from "../schemas/params.js";
import { apiSchemas } from "../schemas/registry.js";

export const SearchQuery = z.object({
  q: queryTextParam,
  limit: limitParam,
  offset: offsetParam,
  channel: channelIdSchema.optional(),
  minViews: minViewsParam,
});

export const SearchHitSchema = z
  .object({
    videoId: z.string(),
    title: z.string(),
    channelTitle: z.string(),
    viewCount: z.int().min(0),
    snippet: z.string().meta({
      description: "HTML-escaped excerpt; matches wrapped in <mark>…</mark>, cut ends marked with …",
    }),
    wordCount: z.int().min(0),
  })
  .register(apiSchemas, { id: "SearchHit" });

export const SearchPaginationSchema = PaginationSchema.extend({
  totalExact: z.boolean().meta({ description: "false when total is an estimate (very common queries)." }),
}).register(apiSchemas, { id: "SearchPagination" });

export const SearchResponseSchema = z
  .object({
    query: z.string().meta({ description: "The query as applied (trimmed)." }),
    results: z.array(SearchHitSchema),
    pagination: SearchPaginationSchema,
  })
  .register(apiSchemas, { id: "SearchResponse" });

export const searchRoute: Route = {
  method: "GET",
  path: "/v1/search",
  auth: true,
  doc: {
    operationId: "search",
    tag: "Search",
    summary: "Full-text search across stored transcripts",
    description:
      "Words are ANDed; quoted words match as a phrase; search syntax characters are plain text. " +
      "Ranking: transcripts holding the query as an exact phrase come first, then those holding all its words otherwise. " +
      "Within each tier the first 100 matches in popularity order are scored with BM25, raised when the title (x1.5) or the channel name (x1.2) " +
      "holds every query term; ties go to the more viewed video, and matches beyond those 100 follow in popularity order (most viewed first). " +
      "Each video is searched through its primary transcript (English first, manual before auto-generated). " +
      "total is exact up to 1,000 matches, estimated above (totalExact false); hasMore is always exact. " +
      "Snippets are HTML-escaped, with matches wrapped in <mark> tags.",
    query: SearchQuery,
    response: SearchResponseSchema,
    responseDescription: "One page of matching transcripts.",
    problems: [],
  },
  handle(ctx, { catalog }) {
    const { q, limit, offset, channel, minViews } = parseQuery(ctx, SearchQuery);
    const page = catalog.search({ q, limit, offset, channel, minViews });
    return {
      body: {
        query: q,
        results: page.results.map((hit) => ({
          videoId: hit.videoId,
          title: hit.title,
          channelTitle: hit.channelTitle,
          viewCount: hit.viewCount,
          snippet: hit.snippet,
          wordCount: hit.wordCount,
        })),
        pagination: { limit, offset, total: page.total, hasMore: page.hasMore, totalExact: page.totalExact },
      },
    };
  },
};
