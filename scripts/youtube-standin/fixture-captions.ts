/**
 * Caption text for the tracks of the fixture videos, whose player files come
 * without timedtext. The English manual track of a set's `transcriptVideos`
 * is the set's written transcript document; every other track gets a short
 * generated text naming its language and kind, so a test can tell which
 * track it was given. Auto-generated tracks read like ASR output: lower
 * case, no punctuation.
 */
import type { FixtureFiles } from "./fixtures.js";
import type { SegmentRecord } from "../../pipeline/artifact/contract/contract.js";

export interface FixtureCaptions {
  /** The document to serve as is, when the track has a written one. */
  rawXml?: string;
  segments: SegmentRecord[];
}

export function fixtureCaptions(
  files: FixtureFiles,
  videoId: string,
  languageCode: string,
  isGenerated: boolean,
): FixtureCaptions | undefined {
  const track = files.tracks(videoId).find((t) => t.languageCode === languageCode && t.isGenerated === isGenerated);
  if (!track) return undefined;
  const written = languageCode === "en" && !isGenerated ? files.englishTranscript(videoId) : undefined;
  if (written !== undefined) return { rawXml: written, segments: [] };
  const lines = isGenerated
    ? [
        `so this is the auto generated ${track.name.toLowerCase().replace(/\W+/g, " ").trim()} track`,
        `it has no punctuation and comes from speech recognition`,
        `of video ${videoId.toLowerCase()}`,
      ]
    : [
        `This is the ${track.name} caption track of video ${videoId}.`,
        `It was written by a person, with punctuation.`,
        `Language code: ${languageCode}.`,
      ];
  return { segments: lines.map((text, i) => ({ start: i * 3.5, duration: 3.2, text })) };
}
