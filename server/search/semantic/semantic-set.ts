/**
 * Search by meaning over one artifact set: its vectors (vector-index.ts)
 * with the set's database for the filters' facts and the hits' videos and
 * texts. A query vector gives the videos of the nearest chunks, best chunk
 * first; a hit is a chunk: its start is the hit's `startSeconds` and link,
 * its text (the query's words marked) the snippet, and the video's other
 * near chunks its moments.
 */
import type Database from "better-sqlite3";
import { decodeSegments } from "../../../pipeline/artifact/segments/index.js";
import type { EmbedderIdentity } from "../../../pipeline/artifact/vectors/index.js";
import type { Moment, SearchHit } from "../../data/catalog.js";
import type { SearchFilters } from "../../schemas/search-filters.js";
import type { ShardFacts } from "../filters.js";
import { parseSearchQuery } from "../query.js";
import { MAX_MOMENTS, watchUrl } from "../snippet/moments.js";
import { findOccurrences } from "../snippet/occurrences.js";
import { renderSnippet } from "../snippet/snippet.js";
import { chunkConditions } from "./vector-filters.js";
import { VectorIndex, type NearChunk } from "./vector-index.js";
import { Lru } from "../../data/lru.js";

const RANKINGS_KEPT = 500;

/** The nearest chunks a search ranks (their videos are its results). */
export const SEMANTIC_CHUNKS = 500;

/** A video of a semantic ranking: its chunks among the nearest, best first. */
export interface RankedVideo {
  video: number;
  chunks: NearChunk[];
}

export interface SemanticRanking {
  videos: RankedVideo[];
  /** Every chunk meeting the filters was ranked (fewer than SEMANTIC_CHUNKS): the list is complete. */
  complete: boolean;
}

interface VideoRow {
  videoId: string;
  title: string;
  channelId: string;
  channelTitle: string;
  viewCount: number;
  wordCount: number;
  script: string;
  timings: Buffer;
}

export class SemanticSet {
  readonly index: VectorIndex;
  readonly #facts: Pick<ShardFacts, "channel" | "lastRankWith">;
  readonly #video: Database.Statement<[number], VideoRow>;
  readonly #videoId: Database.Statement<[number], string>;
  /** Rankings by mode, query and filters, so paging ranks once (the set never changes). */
  readonly rankings = new Lru<string, unknown>(RANKINGS_KEPT);

  constructor(db: Database.Database, index: VectorIndex) {
    this.index = index;
    const channel = db.prepare("SELECT id, transcript_count AS transcripts FROM channels WHERE channel_id = ?");
    const rankBelow = db.prepare("SELECT min(id) FROM videos WHERE view_count = (SELECT max(view_count) FROM videos WHERE view_count < ?)").pluck();
    this.#facts = {
      channel: (channelId) => channel.get(channelId) as { id: number; transcripts: number } | undefined,
      lastRankWith: (minViews) => {
        const below = rankBelow.get(minViews) as number | null;
        return below === null ? undefined : below - 1;
      },
    };
    this.#video = db.prepare(
      `SELECT v.video_id AS videoId, v.title, c.channel_id AS channelId, c.title AS channelTitle, v.view_count AS viewCount,
              t.word_count AS wordCount, t.script, t.timings
       FROM videos v JOIN channels c ON c.id = v.channel JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?`,
    );
    this.#videoId = db.prepare<[number], string>("SELECT video_id FROM videos WHERE id = ?").pluck();
  }

  /** The YouTube id of the set's video `video`. */
  videoId(video: number): string | undefined {
    return this.#videoId.get(video);
  }

  get embedder(): EmbedderIdentity {
    return this.index.meta.embedder;
  }

  /** The videos of the chunks nearest `query` under `filters`, best first; `exact` as VectorIndex.nearest. */
  rank(query: Float32Array, filters: SearchFilters, exact?: boolean): SemanticRanking {
    const chunks = this.index.nearest(query, SEMANTIC_CHUNKS, chunkConditions(filters, this.#facts), exact);
    const byVideo = new Map<number, RankedVideo>();
    for (const chunk of chunks) {
      const entry = byVideo.get(chunk.video);
      if (entry) entry.chunks.push(chunk);
      else byVideo.set(chunk.video, { video: chunk.video, chunks: [chunk] });
    }
    return { videos: [...byVideo.values()], complete: chunks.length < SEMANTIC_CHUNKS };
  }

  /** A ranked video as a hit: its best chunk with the query's words marked, and up to MAX_MOMENTS other near chunks in time order. */
  hit(ranked: RankedVideo, q: string): SearchHit | undefined {
    const row = this.#video.get(ranked.video);
    if (row === undefined) return undefined;
    const subs = decodeSegments(row.script, row.timings);
    const terms = parseSearchQuery(q)?.terms ?? [];
    const text = (chunk: NearChunk) => {
      const plain = subs.slice(chunk.segFrom, chunk.segTo + 1).map((sub) => sub.text).join(" ");
      const spans = findOccurrences(plain, terms).spans;
      const marks: [number, number][] = [];
      for (let i = 0; i < spans.length; i += 3) marks.push([spans[i]!, spans[i + 1]!]);
      return renderSnippet(plain, { start: 0, end: plain.length, marks });
    };
    const [best, ...others] = ranked.chunks;
    const moments: Moment[] = others
      .slice(0, MAX_MOMENTS)
      .sort((a, b) => a.start - b.start)
      .map((chunk) => ({ startSeconds: chunk.start, text: text(chunk) }));
    return {
      videoId: row.videoId,
      title: row.title,
      channelId: row.channelId,
      channelTitle: row.channelTitle,
      viewCount: row.viewCount,
      snippet: text(best!),
      wordCount: row.wordCount,
      startSeconds: best!.start,
      url: watchUrl(row.videoId, best!.start),
      moments,
    };
  }

  close(): void {
    this.index.close();
  }
}

/** The set in `dir` opened for search by meaning, or undefined when it has no vectors. */
export function openSemanticSet(dir: string, db: Database.Database): SemanticSet | undefined {
  const index = VectorIndex.open(dir);
  return index && new SemanticSet(db, index);
}
