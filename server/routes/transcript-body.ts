/**
 * The Video object of GET /v1/transcript/:videoId (spec 2.1), built from a
 * stored transcript. Video fields are always present; the extra metadata only
 * with includeMetadata=true.
 */
import { z } from "zod";
import type { StoredTranscript, VideoMeta } from "../data/catalog.js";
import { apiSchemas } from "../schemas/registry.js";

export const SubSchema = z.object({
  text: z.string(),
  offset: z.string().meta({ description: "Decimal seconds from the start.", example: "1.54" }),
  duration: z.string().meta({ description: "Decimal seconds.", example: "4.16" }),
});

export const TranscriptSchema = z
  .object({
    script: z.string(),
    subs: z.array(SubSchema),
    language: z.string().meta({ description: "Language name in words." }),
    languageCode: z.string(),
    wordCount: z.int().min(0),
    duration: z.number().min(0).meta({ description: "Seconds." }),
    isGenerated: z.boolean(),
  })
  .register(apiSchemas, { id: "Transcript" });

export const ChapterSchema = z.object({
  title: z.string(),
  startSeconds: z.number().min(0),
  endSeconds: z.number().min(0).meta({ description: "Start of the next chapter, or the video length for the last one." }),
});

export const VideoSchema = z
  .object({
    videoId: z.string(),
    title: z.string(),
    channelTitle: z.string(),
    channelId: z.string(),
    viewCount: z.int().min(0),
    publishedAt: z.string().meta({ description: "ISO 8601 UTC." }),
    thumbnail: z.string(),
    transcript: TranscriptSchema,
    cached: z.boolean().meta({ description: "Whether the transcript was stored before this request." }),
    debug: z.object({
      method: z.string().meta({ description: "storage, or the live retrieval method." }),
      usedProxy: z.boolean(),
    }),
    timing: z.object({ totalMs: z.number().min(0) }),
    lengthSeconds: z.number().min(0).optional().meta({ description: "includeMetadata=true only." }),
    description: z.string().nullable().optional().meta({ description: "includeMetadata=true only." }),
    keywords: z.array(z.string()).optional().meta({ description: "includeMetadata=true only." }),
    category: z.string().nullable().optional().meta({ description: "includeMetadata=true only." }),
    chapters: z.array(ChapterSchema).optional().meta({ description: "includeMetadata=true only; empty when the video has none." }),
    matches: z
      .array(z.int().min(0))
      .optional()
      .meta({ description: "With q only: indexes into transcript.subs of the segments where a match of q begins, ascending." }),
  })
  .register(apiSchemas, { id: "Video" });

export interface VideoBodyOptions {
  includeMetadata: boolean;
  cached: boolean;
  method: string;
  usedProxy: boolean;
}

/** Everything but `timing`, which is added last so the ETag can be computed over the rest. */
export function videoBody(stored: StoredTranscript, options: VideoBodyOptions): Record<string, unknown> {
  const { video, transcript } = stored;
  const body: Record<string, unknown> = {
    videoId: video.videoId,
    title: video.title,
    channelTitle: video.channelTitle,
    channelId: video.channelId,
    viewCount: video.viewCount,
    publishedAt: video.publishedAt,
    thumbnail: video.thumbnail,
    transcript: {
      script: transcript.script,
      subs: transcript.subs,
      language: transcript.language,
      languageCode: transcript.languageCode,
      wordCount: transcript.wordCount,
      duration: transcript.duration,
      isGenerated: transcript.isGenerated,
    },
    cached: options.cached,
    debug: { method: options.method, usedProxy: options.usedProxy },
  };
  if (options.includeMetadata) {
    body.lengthSeconds = video.lengthSeconds;
    body.description = video.description;
    body.keywords = video.keywords ?? [];
    body.category = video.category;
    body.chapters = chaptersWithEnds(video);
  }
  return body;
}

export function chaptersWithEnds(video: VideoMeta): z.infer<typeof ChapterSchema>[] {
  const chapters = [...(video.chapters ?? [])].sort((a, b) => a.startSeconds - b.startSeconds);
  return chapters.map((chapter, i) => ({
    title: chapter.title,
    startSeconds: chapter.startSeconds,
    endSeconds: chapters[i + 1]?.startSeconds ?? video.lengthSeconds,
  }));
}
