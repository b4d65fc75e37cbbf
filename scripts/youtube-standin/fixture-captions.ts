/**
 * Caption text for the tracks of the recorded videos, which came without
 * their timedtext. The English manual track of GJLlxj_dtq8 (and of the two
 * other recordings of that video) is the recorded transcript.xml.static;
 * every other track gets a short generated text naming its language and
 * kind, so a test can tell which track it was given. Auto-generated tracks
 * read like ASR output: lower case, no punctuation.
 */
import { FIXTURE_FILES, type FixtureFiles } from "./fixtures.js";
import type { SegmentRecord } from "../../pipeline/contract.js";

const RECORDED_ENGLISH = new Set(["GJLlxj_dtq8", "fx_altered_", "fx_potoken_"]);

export interface FixtureCaptions {
  /** The document to serve as is, when the track has a recorded one. */
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
  if (RECORDED_ENGLISH.has(videoId) && languageCode === "en" && !isGenerated) {
    return { rawXml: files.read(FIXTURE_FILES.transcript), segments: [] };
  }
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
