/** GET /v1/search: full-text search over stored transcripts. */
import { z } from "zod";
import type { SearchParams } from "../data/catalog.js";
import { parseQuery } from "../http/route-input.js";
import type { Route } from "./route.js";
import { PaginationSchema } from "../schemas/pagination.js";
import { limitParam, offsetParam, queryTextParam } from "../schemas/params.js";
import { apiSchemas } from "../schemas/registry.js";
import { SEARCH_FILTER_NAMES, withSearchFilters } from "../schemas/search-filters.js";
import { searchInMode, SEARCH_MODES, type ModeCatalog } from "../search/semantic/mode-search.js";
import { embedderFallback, MODE_PROBLEMS, modeProblem } from "../search/semantic/mode-problem.js";
import type { QueryEmbedders } from "../search/semantic/query-embedders.js";

export const modeParam = z
  .enum(SEARCH_MODES, { error: `must be one of: ${SEARCH_MODES.join(", ")}` })
  .default("keyword")
  .meta({
    description:
      "keyword (default): the words, as always. semantic: by meaning, the videos of the transcript moments (chunks of about 30-60 s) nearest the query's embedding; a hit's startSeconds, url and snippet are its nearest moment's. " +
      "hybrid: the keyword list (its first 100) and the semantic list fused by reciprocal rank. semantic and hybrid need a set built with vectors and a matching query embedder (409 otherwise); they cover the artifact set, not transcripts fetched live since.",
  });

/** The query, the mode, the page and the filters (server/schemas/search-filters.ts). */
export const SearchQuery = withSearchFilters({
  q: queryTextParam,
  mode: modeParam,
  limit: limitParam,
  offset: offsetParam,
});

export const MomentSchema = z
  .object({
    startSeconds: z.number().min(0).meta({ description: "Start of a segment holding a match, in seconds.", example: 132.48 }),
    text: z.string().meta({ description: "The segment's text, HTML-escaped like the snippet, matches in <mark>…</mark>." }),
  })
  .register(apiSchemas, { id: "Moment" });

export const SearchHitSchema = z
  .object({
    videoId: z.string(),
    title: z.string(),
    channelId: z.string(),
    channelTitle: z.string(),
    viewCount: z.int().min(0),
    snippet: z.string().meta({
      description: "HTML-escaped excerpt; matches wrapped in <mark>…</mark>, cut ends marked with …",
    }),
    wordCount: z.int().min(0),
    startSeconds: z.number().min(0).meta({
      description: "Start, in seconds, of the transcript segment where the snippet's first match begins (its first whole-query phrase where it shows one).",
      example: 132.48,
    }),
    url: z.string().meta({ description: "The video on YouTube at that moment: https://www.youtube.com/watch?v=ID&t=Ns, N = floor(startSeconds)." }),
    moments: z.array(MomentSchema).meta({ description: "Up to 3 other segments holding matches (whole-query phrase first, then most query words), in time order." }),
  })
  .register(apiSchemas, { id: "SearchHit" });

export const SearchPaginationSchema = PaginationSchema.extend({
  totalExact: z.boolean().meta({ description: "false when total is an estimate (very common queries)." }),
}).register(apiSchemas, { id: "SearchPagination" });

export const SearchFallbackSchema = z
  .object({
    mode: z.literal("keyword").meta({ description: "The mode the results are of." }),
    code: z.literal("embedder_unavailable").meta({ description: "Why: the query embedder timed out, answered an error, or gave vectors of the wrong length." }),
    detail: z.string().meta({ description: "What the embedder did, for people." }),
  })
  .meta({
    description:
      "Present only when mode=semantic or hybrid could not be searched as asked because the query embedder failed: the results and pagination are keyword search's for the same query, filters and page. The mode asked for may answer again later.",
  })
  .register(apiSchemas, { id: "SearchFallback" });

export const SearchResponseSchema = z
  .object({
    query: z.string().meta({ description: "The query as applied (trimmed)." }),
    results: z.array(SearchHitSchema),
    pagination: SearchPaginationSchema,
    fallback: SearchFallbackSchema.optional(),
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
      "Snippets are HTML-escaped, with matches wrapped in <mark> tags. " +
      "mode=semantic searches by meaning and mode=hybrid fuses both (see mode); the filters and the page work alike in every mode, and in those modes total counts the ranked videos (at most those of the 500 nearest moments).",
    query: SearchQuery,
    response: SearchResponseSchema,
    responseDescription: "One page of matching transcripts.",
    problems: MODE_PROBLEMS,
  },
  async handle(ctx, { catalog, embedders }) {
    return { body: await searchBody(catalog, parseQuery(ctx, SearchQuery), embedders) };
  },
};

/** The answer to a validated search in its mode: the REST body, which the MCP tool `search_transcripts` returns too. */
export async function searchBody(catalog: ModeCatalog, params: z.output<typeof SearchQuery>, embedders?: QueryEmbedders): Promise<z.output<typeof SearchResponseSchema>> {
  const { q, limit, offset } = params;
  let page;
  let fallback;
  try {
    page = await searchInMode(catalog, params, embedders);
  } catch (error) {
    fallback = embedderFallback(error);
    if (fallback === undefined) throw modeProblem(error);
    page = catalog.search({ ...params, mode: "keyword" });
  }
  return {
    query: q,
    ...(fallback && { fallback }),
    results: page.results.map((hit) => ({
      videoId: hit.videoId,
      title: hit.title,
      channelId: hit.channelId,
      channelTitle: hit.channelTitle,
      viewCount: hit.viewCount,
      snippet: hit.snippet,
      wordCount: hit.wordCount,
      startSeconds: hit.startSeconds,
      url: hit.url,
      moments: hit.moments,
    })),
    pagination: { limit, offset, total: page.total, hasMore: page.hasMore, totalExact: page.totalExact },
  };
}

/** The path and query string of a request to this route for `params`. */
export function searchRequestPath(params: SearchParams): string {
  const query = new URLSearchParams({ q: params.q, limit: String(params.limit), offset: String(params.offset) });
  if (params.mode !== undefined && params.mode !== "keyword") query.set("mode", params.mode);
  for (const name of SEARCH_FILTER_NAMES) if (params[name] !== undefined) query.set(name, String(params[name]));
  return `/v1/search?${query.toString()}`;
}
