/**
 * What the routes ask of storage. `ArtifactCatalog` (server/artifact-set/artifact-catalog.ts)
 * implements it over the published artifact set (and, later, the live store).
 * Routes depend on this interface only.
 */
import type { ChapterRecord, TrackKind } from "../../pipeline/artifact/contract/index.js";
import type { Sub } from "../../pipeline/artifact/segments/index.js";
import type { SearchFilters } from "../schemas/search-filters.js";

export interface VideoMeta {
  videoId: string;
  title: string;
  channelId: string;
  channelTitle: string;
  viewCount: number;
  /** ISO 8601 UTC. */
  publishedAt: string;
  thumbnail: string;
  lengthSeconds: number;
  description: string | null;
  chapters: ChapterRecord[] | null;
  keywords: string[] | null;
  category: string | null;
}

export interface TranscriptView {
  language: string;
  languageCode: string;
  isGenerated: boolean;
  wordCount: number;
  duration: number;
  script: string;
  subs: Sub[];
}

export interface StoredTranscript {
  video: VideoMeta;
  transcript: TranscriptView;
}

export type TranscriptLookup =
  | { kind: "found"; stored: StoredTranscript }
  /** The video is stored in the requested language, but not as the kind of track asked for (manual or auto-generated). */
  | { kind: "other-track"; video: VideoMeta }
  /** The video is stored, but not in the requested language: `languages` lists the codes that are. */
  | { kind: "other-languages"; video: VideoMeta; languages: string[] }
  /** The video is stored without any transcript. */
  | { kind: "no-transcript"; video: VideoMeta }
  | { kind: "unknown" };

export interface ChannelVideoItem {
  videoId: string;
  title: string;
  viewCount: number;
  publishedAt: string;
  hasTranscript: boolean;
  /** null when `hasTranscript` is false. */
  transcript: { languageCode: string; wordCount: number; isGenerated: boolean } | null;
}

export interface ChannelPage {
  channelTitle: string;
  items: ChannelVideoItem[];
  total: number;
}

/** A channel as GET /v1/channels lists it. */
export interface ChannelItem {
  channelId: string;
  title: string;
  /** Its stored videos, as its video list counts them. */
  videoCount: number;
  /** Its videos with a stored transcript, as /v1/stats counts them. */
  transcriptCount: number;
}

export interface ChannelList {
  items: ChannelItem[];
  total: number;
}

/** A search: the query, the page, and the filters (server/schemas/search-filters.ts). */
export interface SearchParams extends SearchFilters {
  q: string;
  limit: number;
  offset: number;
  /** keyword (default), semantic or hybrid (server/search/semantic/mode-search.ts); the catalog's own search is keyword. */
  mode?: "keyword" | "semantic" | "hybrid";
}

/**
 * A matching moment of a hit, as the API shows it: declared here, below
 * search, and made by server/search/snippet/moments.ts, so what routes ask
 * of storage imports nothing from search (search sits above data/).
 */
export interface Moment {
  startSeconds: number;
  /** The segment's text, HTML-escaped with its matches in <mark>, as a snippet. */
  text: string;
}

export interface SearchHit {
  videoId: string;
  title: string;
  channelId: string;
  channelTitle: string;
  viewCount: number;
  /** HTML-escaped excerpt with matches wrapped in <mark>…</mark> and … where cut. */
  snippet: string;
  wordCount: number;
  /** Start of the segment where the snippet's first match begins (server/search/snippet/moments.ts). */
  startSeconds: number;
  /** The video on YouTube at `startSeconds`. */
  url: string;
  /** A few other matching times in the transcript. */
  moments: Moment[];
}

export interface SearchPage {
  results: SearchHit[];
  total: number;
  /** false when `total` is an estimate (above the exact-count cap). */
  totalExact: boolean;
  hasMore: boolean;
}

export interface Stats {
  videos: number;
  transcripts: number;
  totalWords: number;
  avgWordsPerTranscript: number;
  channels: number;
  /** Transcripts of the artifact set with vectors for search by meaning (none fetched live since have). */
  transcriptsWithVectors?: number;
}

export interface Catalog {
  /** Changes whenever anything the catalog answers may change (a new artifact set, a live-store write): a cache key. */
  version(): string;
  /** `track` picks the kind of track (default `any`: the manual one when there is one). */
  getTranscript(videoId: string, languageCode: string, track?: TrackKind): TranscriptLookup;
  /** undefined when the channel is unknown. */
  channelVideos(channelId: string, limit: number, offset: number): ChannelPage | undefined;
  /** Every channel, most transcripts first, ties by channel id. */
  channels(limit: number, offset: number): ChannelList;
  search(params: SearchParams): SearchPage;
  stats(): Stats;
  close(): void;
}
