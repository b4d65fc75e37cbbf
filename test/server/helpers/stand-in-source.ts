/**
 * A TranscriptSource for tests of the hand-over to live fetching (the real
 * fetcher comes with the live-fetch work). Ids decide the outcome:
 * `live…` → a transcript; `typed404…` → a 404 video_not_found problem;
 * `upstream…` → a 502 problem; `boom…` → any other error (a bug); `slow…` → a transcript after `delayMs`.
 */
import type { StoredTranscript } from "../../../server/data/catalog.js";
import { HttpError } from "../../../server/problem/http-error.js";
import type { TranscriptFetchOptions, TranscriptSource, TranscriptSourceResult } from "../../../server/live/transcript-source.js";

export interface StandInSource extends TranscriptSource {
  calls: string[];
  maxConcurrent: number;
}

export function liveTranscript(videoId: string, lang: string): StoredTranscript {
  return {
    video: {
      videoId,
      title: `Live ${videoId}`,
      channelId: "UCliveliveliveliveliveli",
      channelTitle: "Live Channel",
      viewCount: 42,
      publishedAt: "2024-05-01T10:00:00Z",
      thumbnail: `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`,
      lengthSeconds: 12,
      description: "fetched live",
      chapters: null,
      keywords: null,
      category: null,
    },
    transcript: {
      language: "English",
      languageCode: lang,
      isGenerated: true,
      wordCount: 3,
      duration: 4,
      script: "hello live world",
      subs: [{ text: "hello live world", offset: "0", duration: "4" }],
    },
  };
}

export function createStandInSource(options: { delayMs?: number } = {}): StandInSource {
  let active = 0;
  const source: StandInSource = {
    calls: [],
    maxConcurrent: 0,
    async fetch(videoId: string, lang: string, { signal }: TranscriptFetchOptions): Promise<TranscriptSourceResult> {
      source.calls.push(videoId);
      active++;
      source.maxConcurrent = Math.max(source.maxConcurrent, active);
      try {
        await new Promise((resolve) => setTimeout(resolve, videoId.startsWith("slow") ? (options.delayMs ?? 200) : 5));
        signal.throwIfAborted();
        if (videoId.startsWith("typed404")) throw new HttpError(404, "video_not_found", "The video does not exist.");
        if (videoId.startsWith("upstream")) throw new HttpError(502, "upstream_unavailable", "The source did not answer.");
        if (videoId.startsWith("boom")) throw new Error("kaboom: internal detail that must not reach clients");
        return { stored: liveTranscript(videoId, lang), method: "innertube", usedProxy: false };
      } finally {
        active--;
      }
    },
  };
  return source;
}
