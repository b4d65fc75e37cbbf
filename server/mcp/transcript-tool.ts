/**
 * `get_transcript`: one video's transcript as `resolveTranscript` finds it
 * (storage, else fetched live and stored, as GET /v1/transcript does), in a
 * format, optionally cut to a time window, read in pieces of at most
 * `maxChars` characters that join exactly into the whole.
 */
import { z } from "zod";
import { HttpError } from "../problem/http-error.js";
import { validate } from "../http/validate.js";
import { resolveTranscript } from "../live/resolve-transcript.js";
import { SubSchema } from "../routes/transcript-body.js";
import { langParam, trackParam, videoIdSchema } from "../schemas/params.js";
import { clock, count } from "./readable.js";
import type { Tool } from "./tool.js";
import { DOCUMENT_FORMATS, renderTranscript, segmentsInWindow } from "./transcript-document.js";
import { itemPiece, textPiece, type Piece } from "./transcript-pieces.js";
import { videoIdOf, watchUrl } from "./video-ref.js";

export const DEFAULT_MAX_CHARS = 40_000;
export const MIN_MAX_CHARS = 200;
export const MAX_MAX_CHARS = 500_000;

/** A window's bound: far past any video's length (YouTube's longest run days), and small enough to print as a time. */
export const MAX_WINDOW_SECONDS = 10_000_000;
const seconds = (what: string) =>
  z.number({ error: "must be a number of seconds" }).min(0, "must be at least 0").max(MAX_WINDOW_SECONDS, `must be at most ${MAX_WINDOW_SECONDS}`).optional().meta({ description: what });

export const TranscriptArguments = z
  .strictObject({
    videoId: z
      .string({ error: "must be a video id or a YouTube link" })
      .max(2048, "must be at most 2048 characters")
      .meta({ description: "The video: its 11-character id, or a YouTube link (watch?v=, youtu.be/, /shorts/, /embed/, /live/).", example: "dQw4w9WgXcQ" }),
    lang: langParam,
    track: trackParam,
    format: z
      .enum(DOCUMENT_FORMATS, { error: `must be one of ${DOCUMENT_FORMATS.join(", ")}` })
      .default("text")
      .meta({
        description:
          "text (default): one segment a line. srt, vtt: SubRip and WebVTT subtitles, as GET /v1/transcript?format= gives them. " +
          "json: the timed segments (offset and duration in seconds, as strings).",
      }),
    startSeconds: seconds("Only the segments from this second on (those still running at it included)."),
    endSeconds: seconds("Only the segments that start before this second."),
    maxChars: z
      .int({ error: "must be a whole number" })
      .min(MIN_MAX_CHARS, `must be at least ${MIN_MAX_CHARS}`)
      .max(MAX_MAX_CHARS, `must be at most ${MAX_MAX_CHARS}`)
      .default(DEFAULT_MAX_CHARS)
      .meta({ description: `Largest piece to return, in characters (default ${DEFAULT_MAX_CHARS}); json pieces hold whole segments.` }),
    cursor: z
      .string({ error: "must be the nextCursor of an earlier answer" })
      .max(200, "must be the nextCursor of an earlier answer")
      .optional()
      .meta({ description: "nextCursor of the previous piece, with the same videoId, lang, track, format and window." }),
  })
  .refine((a) => a.startSeconds === undefined || a.endSeconds === undefined || a.endSeconds > a.startSeconds, {
    path: ["endSeconds"],
    message: "must be greater than startSeconds",
  });

const VideoIdArgument = z.object({ videoId: videoIdSchema });

export const TranscriptPieceSchema = z.object({
  videoId: z.string(),
  title: z.string(),
  channelTitle: z.string(),
  channelId: z.string(),
  viewCount: z.int(),
  publishedAt: z.string().meta({ description: "ISO 8601 UTC." }),
  url: z.string().meta({ description: "The video on YouTube." }),
  language: z.string(),
  languageCode: z.string(),
  isGenerated: z.boolean(),
  wordCount: z.int().meta({ description: "Of the whole transcript." }),
  duration: z.number().meta({ description: "Seconds, of the whole transcript." }),
  cached: z.boolean().meta({ description: "Whether the transcript was stored before this call (false: fetched from YouTube now, and stored)." }),
  format: z.enum(DOCUMENT_FORMATS),
  content: z.string().optional().meta({ description: "This piece of the text (format text)." }),
  segments: z.array(SubSchema).optional().meta({ description: "This piece's segments (format json)." }),
  piece: z
    .object({ unit: z.enum(["characters", "segments"]), start: z.int(), end: z.int(), total: z.int() })
    .meta({ description: "Where this piece lies in the whole (after the window): [start, end) of total." }),
  nextCursor: z.string().optional().meta({ description: "Pass it as cursor for the next piece; absent on the last one." }),
});

export const transcriptTool: Tool = {
  name: "get_transcript",
  description:
    "One video's transcript, from storage or else fetched from YouTube (and stored). Long transcripts come in pieces of at most maxChars " +
    "characters: call again with cursor = nextCursor until it is absent; the pieces join exactly into the whole. " +
    "startSeconds/endSeconds cut a time window (from a search hit's moment, say); a startSeconds at or past the transcript's end is start_past_end. " +
    "track=generated asks for the auto-generated track, manual for the other. " +
    "Videos without one answer transcripts_disabled, video_unavailable, language_not_available (with availableLanguages), track_not_available and the like.",
  input: TranscriptArguments,
  output: TranscriptPieceSchema,
  annotations: { title: "Get a transcript", readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, { ctx, deps }) {
    const a = validate(TranscriptArguments, args, { rootName: "arguments" });
    const { videoId } = validate(VideoIdArgument, { videoId: videoIdOf(a.videoId) }, { rootName: "arguments", code: "invalid_video_id" });
    const { stored, cached } = await resolveTranscript(deps.catalog, deps.transcriptSource, videoId, a.lang, {
      includeMetadata: false,
      track: a.track,
      signal: ctx.signal,
      deadline: ctx.deadline,
    });
    const { video, transcript } = stored;
    const subs = segmentsInWindow(transcript.subs, a.startSeconds, a.endSeconds);
    if (a.startSeconds !== undefined && subs.length === 0 && a.startSeconds >= transcript.duration) throw startPastEnd(transcript.duration, video.lengthSeconds);
    // A cursor is good for the same document only.
    const identity = JSON.stringify([videoId, transcript.languageCode, transcript.isGenerated, a.format, a.startSeconds ?? null, a.endSeconds ?? null]);
    const piece: Piece<unknown> =
      a.format === "json" ? itemPiece(subs, identity, a.cursor, a.maxChars) : textPiece(renderTranscript(subs, a.format), identity, a.cursor, a.maxChars);
    const structured: z.output<typeof TranscriptPieceSchema> = {
      videoId,
      title: video.title,
      channelTitle: video.channelTitle,
      channelId: video.channelId,
      viewCount: video.viewCount,
      publishedAt: video.publishedAt,
      url: watchUrl(videoId),
      language: transcript.language,
      languageCode: transcript.languageCode,
      isGenerated: transcript.isGenerated,
      wordCount: transcript.wordCount,
      duration: transcript.duration,
      cached,
      format: a.format,
      ...(a.format === "json" ? { segments: piece.part as typeof subs } : { content: piece.part as string }),
      piece: { unit: a.format === "json" ? "segments" : "characters", start: piece.start, end: piece.end, total: piece.total },
      ...(piece.nextCursor === undefined ? {} : { nextCursor: piece.nextCursor }),
    };
    return { structured, text: transcriptText(structured, a.startSeconds, a.endSeconds) };
  },
};

/**
 * A window starting where nothing is said any more would be an empty answer
 * ("characters 0–0 of 0") that reads like a transcript without words; the
 * caller asked past the end, so say where the end is. A window inside the
 * transcript that holds no segment (a silence) is still an empty answer.
 */
function startPastEnd(duration: number, lengthSeconds: number): HttpError {
  const video = lengthSeconds > 0 ? `; the video lasts ${clock(lengthSeconds)}` : "";
  return new HttpError(400, "start_past_end", `startSeconds is past the end of the transcript, which ends at ${clock(duration)} (${duration} s)${video}.`, {
    errors: [{ param: "startSeconds", message: `must be before the end of the transcript (${clock(duration)})` }],
    extensions: { duration },
  });
}

function transcriptText(answer: z.output<typeof TranscriptPieceSchema>, startSeconds: number | undefined, endSeconds: number | undefined): string {
  const { piece } = answer;
  const window = startSeconds === undefined && endSeconds === undefined ? "" : `; window ${clock(startSeconds ?? 0)}–${endSeconds === undefined ? "end" : clock(endSeconds)}`;
  const lines = [
    `${answer.title} — ${answer.channelTitle} (${answer.url})`,
    `${answer.language}, ${clock(answer.duration)}, ${count(answer.wordCount)} words, ${answer.cached ? "from storage" : "fetched from YouTube now"}${window}; ` +
      `${piece.unit} ${count(piece.start)}–${count(piece.end)} of ${count(piece.total)}.`,
    "",
  ];
  const body = answer.segments?.map((s) => `[${clock(Number(s.offset))}] ${s.text}`).join("\n") ?? answer.content ?? "";
  lines.push(body);
  if (answer.nextCursor !== undefined) lines.push("", `(Continues: call get_transcript again with cursor "${answer.nextCursor}".)`);
  return lines.join("\n");
}
