/**
 * Point lookups in one database of the artifact schema (the artifact set or
 * the live store): a video's transcript in a language (and of a kind), a channel's videos.
 */
import type Database from "better-sqlite3";
import { type ChapterRecord, isOfKind, sameLanguage, type TrackKind } from "../../pipeline/artifact/contract/index.js";
import { decodeSegments, type Sub } from "../../pipeline/artifact/segments/index.js";
import type { ChannelItem, ChannelPage, ChannelVideoItem, TranscriptLookup, VideoMeta } from "./catalog.js";

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
}

export class TranscriptTables {
  readonly #sql;

  constructor(db: Database.Database) {
    this.#sql = {
      video: db.prepare(
        `SELECT v.id, v.video_id, v.title, v.view_count, v.published_at, v.thumbnail, v.length_seconds,
                v.description, v.chapters, v.keywords, v.category, c.channel_id, c.title AS channel_title
         FROM videos v JOIN channels c ON c.id = v.channel WHERE v.video_id = ?`,
      ),
      // Manual first, so a manual track wins over an auto-generated one in the same language.
      tracks: db.prepare("SELECT id, language_code, language, is_generated FROM transcripts WHERE video = ? ORDER BY is_generated, id"),
      track: db.prepare("SELECT word_count, duration, script, timings FROM transcripts WHERE id = ?"),
      channel: db.prepare("SELECT id, title, video_count FROM channels WHERE channel_id = ?"),
      channels: db.prepare("SELECT channel_id AS channelId, title, video_count AS videoCount, transcript_count AS transcriptCount FROM channels"),
      channelVideos: db.prepare(
        `SELECT v.video_id AS videoId, v.title, v.view_count AS viewCount, v.published_at AS publishedAt,
                t.language_code AS languageCode, t.word_count AS wordCount, t.is_generated AS isGenerated
         FROM videos v LEFT JOIN transcripts t ON t.id = v.transcript
         WHERE v.channel = ? ORDER BY v.published_at DESC, v.id LIMIT ? OFFSET ?`,
      ),
    };
  }

  getTranscript(videoId: string, languageCode: string, kind: TrackKind = "any"): TranscriptLookup {
    const row = this.#sql.video.get(videoId) as VideoRow | undefined;
    if (!row) return { kind: "unknown" };
    const video = toVideoMeta(row);
    const tracks = this.#sql.tracks.all(row.id) as TrackRow[];
    if (tracks.length === 0) return { kind: "no-transcript", video };
    const inLanguage = tracks.filter((t) => sameLanguage(t.language_code, languageCode));
    if (inLanguage.length === 0) return { kind: "other-languages", video, languages: [...new Set(tracks.map((t) => t.language_code))] };
    const track = inLanguage.find((t) => isOfKind(t.is_generated === 1, kind));
    if (!track) return { kind: "other-track", video };
    const text = this.#sql.track.get(track.id) as { word_count: number; duration: number; script: string; timings: Buffer };
    // Segments are decoded on first use: bulk answers and search never read them.
    let subs: Sub[] | undefined;
    return {
      kind: "found",
      stored: {
        video,
        transcript: {
          language: track.language,
          languageCode: track.language_code,
          isGenerated: track.is_generated === 1,
          wordCount: text.word_count,
          duration: text.duration,
          script: text.script,
          get subs(): Sub[] {
            return (subs ??= decodeSegments(text.script, text.timings));
          },
        },
      },
    };
  }

  channelVideos(channelId: string, limit: number, offset: number): ChannelPage | undefined {
    const channel = this.#sql.channel.get(channelId) as { id: number; title: string; video_count: number } | undefined;
    if (!channel) return undefined;
    const rows = this.#sql.channelVideos.all(channel.id, limit, offset) as ChannelVideoRow[];
    return {
      channelTitle: channel.title,
      total: channel.video_count,
      items: rows.map(toChannelVideoItem),
    };
  }

  /** Every channel with the counts the build stored, in no particular order. */
  channels(): ChannelItem[] {
    return this.#sql.channels.all() as ChannelItem[];
  }

  hasChannel(channelId: string): boolean {
    return this.#sql.channel.get(channelId) !== undefined;
  }
}

export interface ChannelVideoRow {
  videoId: string;
  title: string;
  viewCount: number;
  publishedAt: string;
  languageCode: string | null;
  wordCount: number | null;
  isGenerated: number | null;
}

export function toChannelVideoItem(r: ChannelVideoRow): ChannelVideoItem {
  return {
    videoId: r.videoId,
    title: r.title,
    viewCount: r.viewCount,
    publishedAt: r.publishedAt,
    hasTranscript: r.languageCode !== null,
    transcript:
      r.languageCode === null ? null : { languageCode: r.languageCode, wordCount: r.wordCount ?? 0, isGenerated: r.isGenerated === 1 },
  };
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
