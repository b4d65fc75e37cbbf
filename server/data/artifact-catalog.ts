/**
 * The catalog over one published artifact set: the SQLite database opened
 * read-only, and the FlexSearch title index loaded into memory.
 */
import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACT_FILES, type ChapterRecord, type Manifest } from "../../pipeline/contract.js";
import { ArtifactError, readManifest } from "../../pipeline/build/manifest.js";
import { decodeSegments } from "../../pipeline/segments.js";
import { importTitleIndex } from "../../pipeline/title-index.js";
import type { Catalog, ChannelPage, SearchPage, SearchParams, Stats, TranscriptLookup, VideoMeta } from "./catalog.js";
import { TranscriptSearch, type SearchOptions } from "./search.js";

export { ArtifactError };

export interface CatalogOptions {
  /** The artifact set's directory (e.g. `<DATA_DIR>/current`). */
  dir: string;
  search?: SearchOptions;
  /** Bytes of the database SQLite may memory-map (default 256 MiB). */
  mmapBytes?: number;
}

interface VideoRow {
  id: number;
  video_id: string;
  title: string;
  view_count: number;
  published_at: string;
  thumbnail: string;
  length_seconds: number;
  description: string | null;
  chapters: string | null;
  keywords: string | null;
  category: string | null;
  channel_id: string;
  channel_title: string;
}

interface TrackRow {
  id: number;
  language_code: string;
  language: string;
  is_generated: number;
  word_count: number;
  duration: number;
}

export function openCatalog(options: CatalogOptions): ArtifactCatalog {
  const manifest = readManifest(options.dir);
  const db = new Database(join(options.dir, ARTIFACT_FILES.database), { readonly: true, fileMustExist: true });
  try {
    db.pragma(`mmap_size = ${options.mmapBytes ?? 256 * 1024 * 1024}`);
    const meta = db.prepare("SELECT value FROM meta WHERE key = 'builtAt'").pluck().get();
    if (meta !== manifest.builtAt) {
      throw new ArtifactError(`${options.dir}: the database does not belong to this manifest (built ${String(meta)}, manifest says ${manifest.builtAt})`);
    }
    const titles = importTitleIndex(readFileSync(join(options.dir, ARTIFACT_FILES.titleIndex), "utf8"));
    return new ArtifactCatalog(db, manifest, titles, options.search);
  } catch (error) {
    db.close();
    throw error;
  }
}

export class ArtifactCatalog implements Catalog {
  readonly manifest: Manifest;
  readonly #db: Database.Database;
  readonly #search: TranscriptSearch;
  readonly #statements;

  constructor(db: Database.Database, manifest: Manifest, titles: ReturnType<typeof importTitleIndex>, search?: SearchOptions) {
    this.#db = db;
    this.manifest = manifest;
    const { transcripts, totalWords } = manifest.counts;
    this.#search = new TranscriptSearch(db, titles, { documents: transcripts, averageLength: transcripts ? totalWords / transcripts : 0 }, search);
    this.#statements = {
      video: db.prepare(
        `SELECT v.id, v.video_id, v.title, v.view_count, v.published_at, v.thumbnail, v.length_seconds,
                v.description, v.chapters, v.keywords, v.category, c.channel_id, c.title AS channel_title
         FROM videos v JOIN channels c ON c.id = v.channel WHERE v.video_id = ?`,
      ),
      tracks: db.prepare(
        `SELECT id, language_code, language, is_generated, word_count, duration
         FROM transcripts WHERE video = ? ORDER BY is_generated, id`,
      ),
      text: db.prepare("SELECT script, timings FROM transcripts WHERE id = ?"),
      channel: db.prepare("SELECT id, title, video_count FROM channels WHERE channel_id = ?"),
      channelVideos: db.prepare(
        `SELECT v.video_id AS videoId, v.title, v.view_count AS viewCount, v.published_at AS publishedAt,
                t.language_code AS languageCode, t.word_count AS wordCount, t.is_generated AS isGenerated
         FROM videos v LEFT JOIN transcripts t ON t.id = v.transcript
         WHERE v.channel = ? ORDER BY v.published_at DESC, v.id LIMIT ? OFFSET ?`,
      ),
    };
  }

  getTranscript(videoId: string, languageCode: string): TranscriptLookup {
    const row = this.#statements.video.get(videoId) as VideoRow | undefined;
    if (!row) return { kind: "unknown" };
    const video = toVideoMeta(row);
    const tracks = this.#statements.tracks.all(row.id) as TrackRow[];
    if (tracks.length === 0) return { kind: "no-transcript", video };
    const wanted = languageCode.toLowerCase();
    // Ordered manual first, so a manual track wins over an auto-generated one in the same language.
    const track = tracks.find((t) => t.language_code.toLowerCase() === wanted);
    if (!track) return { kind: "other-languages", video, languages: [...new Set(tracks.map((t) => t.language_code))] };
    const text = this.#statements.text.get(track.id) as { script: string; timings: Buffer };
    return {
      kind: "found",
      stored: {
        video,
        transcript: {
          language: track.language,
          languageCode: track.language_code,
          isGenerated: track.is_generated === 1,
          wordCount: track.word_count,
          duration: track.duration,
          script: text.script,
          subs: decodeSegments(text.script, text.timings),
        },
      },
    };
  }

  channelVideos(channelId: string, limit: number, offset: number): ChannelPage | undefined {
    const channel = this.#statements.channel.get(channelId) as { id: number; title: string; video_count: number } | undefined;
    if (!channel) return undefined;
    const rows = this.#statements.channelVideos.all(channel.id, limit, offset) as {
      videoId: string;
      title: string;
      viewCount: number;
      publishedAt: string;
      languageCode: string | null;
      wordCount: number | null;
      isGenerated: number | null;
    }[];
    return {
      channelTitle: channel.title,
      total: channel.video_count,
      items: rows.map((r) => ({
        videoId: r.videoId,
        title: r.title,
        viewCount: r.viewCount,
        publishedAt: r.publishedAt,
        hasTranscript: r.languageCode !== null,
        transcript:
          r.languageCode === null
            ? null
            : { languageCode: r.languageCode, wordCount: r.wordCount ?? 0, isGenerated: r.isGenerated === 1 },
      })),
    };
  }

  search(params: SearchParams): SearchPage {
    return this.#search.search(params);
  }

  stats(): Stats {
    const { videos, transcripts, totalWords, channels } = this.manifest.counts;
    return { videos, transcripts, totalWords, avgWordsPerTranscript: transcripts ? Math.round(totalWords / transcripts) : 0, channels };
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

function toVideoMeta(row: VideoRow): VideoMeta {
  return {
    videoId: row.video_id,
    title: row.title,
    channelId: row.channel_id,
    channelTitle: row.channel_title,
    viewCount: row.view_count,
    publishedAt: row.published_at,
    thumbnail: row.thumbnail,
    lengthSeconds: row.length_seconds,
    description: row.description,
    chapters: row.chapters === null ? null : (JSON.parse(row.chapters) as ChapterRecord[]),
    keywords: row.keywords === null ? null : (JSON.parse(row.keywords) as string[]),
    category: row.category,
  };
}
