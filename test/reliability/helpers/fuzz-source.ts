/** A transcript source that finds every video: with it, any well-formed unknown id is a valid request (200). */
import type { TranscriptSource } from "../../../server/live/transcript-source.js";
import { liveTranscript } from "../../server/helpers/stand-in-source.js";

export function everyVideoSource(): TranscriptSource {
  return {
    async fetch(videoId, lang) {
      return { stored: liveTranscript(videoId, lang), method: "innertube", usedProxy: false };
    },
  };
}
