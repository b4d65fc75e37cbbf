/**
 * The one place a fetch worker asks YouTube for a video's transcript: the
 * client's fetch with the run's languages, falling back to the video's own
 * track when it has none of them. What a pool of exits (pacing, cool-downs)
 * does to a request is decided behind `client`; the worker only hears the
 * outcome, sorted into what the queue does with it.
 */
import type { VideoRecord } from "../../artifact/contract/index.js";
import { isYouTubeError, type YouTubeClient, type YouTubeError } from "../../youtube/index.js";
import { fallbackLanguage } from "../fetch-transcripts.js";

export type VideoFetch =
  | { kind: "fetched"; record: VideoRecord }
  /** Asking again gives the same answer (private, removed, no captions…): recorded, not retried soon. */
  | { kind: "permanent"; error: YouTubeError }
  /** Blocked by YouTube, or a passing failure: the job goes back to the queue. */
  | { kind: "blocked" | "transient"; error: YouTubeError };

export interface FetchVideoOptions {
  client: YouTubeClient;
  videoId: string;
  languages: string[];
  anyLanguage: boolean;
  signal: AbortSignal;
}

/** Throws only what is not YouTube's answer (a bug, an abort). */
export async function fetchVideo(options: FetchVideoOptions): Promise<VideoFetch> {
  let languages = options.languages;
  for (;;) {
    try {
      const { record } = await options.client.fetchTranscript(options.videoId, { languages, signal: options.signal });
      return { kind: "fetched", record };
    } catch (error) {
      if (options.signal.aborted || !isYouTubeError(error)) throw error;
      const fallback = fallbackLanguage(error, languages, options.anyLanguage);
      if (fallback) {
        languages = [fallback];
        continue;
      }
      return { kind: error.kind, error };
    }
  }
}
