/**
 * What the live tests serve: an artifact set holding a few videos, and a
 * stand-in YouTube knowing more (videos the set lacks entirely, and videos the
 * set holds without the transcript asked for). The stand-in also serves the
 * recorded fixtures by their ids.
 */
import type { VideoRecord } from "../../../pipeline/artifact/contract/contract.js";
import { inMemoryCorpus, type StandinCorpus } from "../../../scripts/youtube-standin/corpus.js";
import { makeVideo, transcript } from "../../youtube/helpers/records.js";

export const LIVE_CHANNEL = "UCliveTestChannel0000001";

/** Stored in the artifact set, with an English transcript. */
export const STORED = makeVideo({
  videoId: "stored00001",
  channelId: LIVE_CHANNEL,
  channelTitle: "Live Test Channel",
  channelHandle: "@livetest",
  title: "Stored lecture about glaciers",
  transcripts: [transcript("en", "English", false, ["glaciers carve valleys slowly over thousands of years"])],
});

/** On YouTube with English and German; the artifact set has only its German track. */
export const PARTIAL_UPSTREAM = makeVideo({
  videoId: "partial0001",
  channelId: LIVE_CHANNEL,
  channelTitle: "Live Test Channel",
  channelHandle: "@livetest",
  title: "Volcanoes explained",
  transcripts: [
    transcript("en", "English", false, ["magma rises through the crust of the volcano"]),
    transcript("de", "German", false, ["Magma steigt durch die Kruste des Vulkans"]),
  ],
});
export const PARTIAL_STORED: VideoRecord = { ...PARTIAL_UPSTREAM, transcripts: [PARTIAL_UPSTREAM.transcripts[1]!] };

/** On YouTube with an auto-generated track; the artifact set has it without any transcript. */
export const CAPTIONED_UPSTREAM = makeVideo({
  videoId: "latecaps001",
  channelId: LIVE_CHANNEL,
  channelTitle: "Live Test Channel",
  channelHandle: "@livetest",
  title: "Captions arrived later",
  transcripts: [transcript("en", "English (auto-generated)", true, ["captions were added after the upload"])],
});
export const CAPTIONED_STORED: VideoRecord = { ...CAPTIONED_UPSTREAM, transcripts: [] };

/** Videos only YouTube has; `fresh(i)` has the word `quokka<i>` in its transcript, for search. */
export function fresh(i: number): VideoRecord {
  return makeVideo({
    videoId: `fresh${String(i).padStart(6, "0")}`,
    channelId: LIVE_CHANNEL,
    channelTitle: "Live Test Channel",
    channelHandle: "@livetest",
    title: `Fresh upload ${i}`,
    publishedAt: new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().replace(/\.000Z$/, "Z"),
    transcripts: [transcript("en", "English", false, [`a marsupial called quokka${i} smiles at the camera`, "then it hops away"])],
  });
}

export const FRESH_COUNT = 60;

export function artifactRecords(): VideoRecord[] {
  return [STORED, PARTIAL_STORED, CAPTIONED_STORED];
}

export function upstreamCorpus(): StandinCorpus {
  const videos = [STORED, PARTIAL_UPSTREAM, CAPTIONED_UPSTREAM, ...Array.from({ length: FRESH_COUNT }, (_, i) => fresh(i))];
  return inMemoryCorpus(videos, [
    { channelId: LIVE_CHANNEL, title: "Live Test Channel", handle: "@livetest", videoIds: videos.map((v) => v.videoId) },
  ]);
}
