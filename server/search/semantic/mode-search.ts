/**
 * A search in one of its modes: `keyword` (the full-text search, as it has
 * always been), `semantic` (the videos of the chunks nearest the query's
 * vector, semantic-set.ts) or `hybrid` (the keyword list and the semantic
 * list fused by reciprocal rank, rrf.ts). The filters and the page apply in
 * every mode. Semantic and hybrid need the served set's vectors and a query
 * embedder that makes vectors like them; without, SemanticUnavailable says
 * which is missing.
 */
import type { Catalog, SearchHit, SearchPage, SearchParams } from "../../data/catalog.js";
import { MAX_PAGE_SIZE } from "../../schemas/params.js";
import { filtersKey, filtersOf } from "../filters.js";
import type { QueryEmbedders } from "./query-embedders.js";
import { reciprocalRankFusion } from "./rrf.js";
import type { SemanticRanking, SemanticSet } from "./semantic-set.js";
import { VectorsFormatError } from "./vector-index.js";

export const SEARCH_MODES = ["keyword", "semantic", "hybrid"] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** Why a semantic or hybrid search cannot be answered here; keyword search can. */
export class SemanticUnavailable extends Error {
  override name = "SemanticUnavailable";
  constructor(
    readonly reason: "no_vectors" | "embedder_mismatch",
    message: string,
  ) {
    super(message);
  }
}

/** What a mode search asks of the catalog: keyword search, and the served set's vectors when it has them. */
export type ModeCatalog = Pick<Catalog, "search"> & { semantic?(): SemanticSet | undefined };

/** The keyword list hybrid search fuses: its first this many hits. */
export const HYBRID_KEYWORD_HITS = MAX_PAGE_SIZE;

export async function searchInMode(catalog: ModeCatalog, params: SearchParams & { mode?: SearchMode }, embedders: QueryEmbedders | undefined): Promise<SearchPage> {
  const mode = params.mode ?? "keyword";
  if (mode === "keyword") return catalog.search(params);
  const set = openedSemantic(catalog);
  if (set === undefined) {
    throw new SemanticUnavailable("no_vectors", "The served set has no vectors: it was built without an embedder (EMBEDDER=builtin or EMBEDDINGS_URL at build time gives it vectors). mode=keyword works.");
  }
  const embedding = embedders?.for(set.embedder) ?? { refused: "this server has no query embedder" };
  if ("refused" in embedding) throw new SemanticUnavailable("embedder_mismatch", `Semantic search is unavailable: ${embedding.refused}. Set EMBEDDER and EMBEDDINGS_* to match, or rebuild the set. mode=keyword works.`);
  const key = `${mode}\u0000${params.q}\u0000${filtersKey(filtersOf(params))}`;
  let ranked = set.rankings.get(key) as Ranked | undefined;
  if (ranked === undefined) {
    const semantic = set.rank(await embedding.embed(params.q), filtersOf(params));
    ranked = mode === "semantic" ? semanticRanked(set, semantic, params.q) : hybridRanked(catalog, set, semantic, params);
    set.rankings.set(key, ranked);
  }
  const page = ranked.items.slice(params.offset, params.offset + params.limit);
  const results = page.map((item) => item()).filter((hit): hit is SearchHit => hit !== undefined);
  return { results, total: ranked.items.length, totalExact: ranked.exact, hasMore: params.offset + params.limit < ranked.items.length };
}

/** The served set's vectors; of a format this server cannot read, refused as unavailable (keyword search works). */
function openedSemantic(catalog: ModeCatalog): SemanticSet | undefined {
  try {
    return catalog.semantic?.();
  } catch (error) {
    if (error instanceof VectorsFormatError) throw new SemanticUnavailable("no_vectors", error.message);
    throw error;
  }
}

/** A ranking: each result made when its page is asked for. */
interface Ranked {
  items: (() => SearchHit | undefined)[];
  exact: boolean;
}

function semanticRanked(set: SemanticSet, ranking: SemanticRanking, q: string): Ranked {
  return { items: ranking.videos.map((video) => () => set.hit(video, q)), exact: ranking.complete };
}

/** The keyword list's first HYBRID_KEYWORD_HITS and the semantic list fused; a hit in the keyword list keeps its keyword snippet and moment. */
function hybridRanked(catalog: ModeCatalog, set: SemanticSet, ranking: SemanticRanking, params: SearchParams): Ranked {
  const keyword = catalog.search({ ...params, offset: 0, limit: HYBRID_KEYWORD_HITS });
  const keywordHits = new Map(keyword.results.map((hit) => [hit.videoId, hit]));
  const semanticVideos = new Map<string, SemanticRanking["videos"][number]>();
  for (const video of ranking.videos) {
    const id = set.videoId(video.video);
    if (id !== undefined) semanticVideos.set(id, video);
  }
  const fused = reciprocalRankFusion([[...keywordHits.keys()], [...semanticVideos.keys()]]);
  const items = fused.map(({ item: videoId }) => () => keywordHits.get(videoId) ?? set.hit(semanticVideos.get(videoId)!, params.q));
  return { items, exact: keyword.totalExact && keyword.total <= HYBRID_KEYWORD_HITS && ranking.complete };
}
