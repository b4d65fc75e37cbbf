/**
 * The small corpus the server tests are built on: two channels, markup in a
 * transcript, a video without transcript, a German-only video, a video with
 * chapters and several tracks, and enough "river" videos to paginate.
 */
import type { VideoRecord } from "../../../pipeline/artifact/contract/contract.js";

export const CHANNEL_A = "UCaaaaaaaaaaaaaaaaaaaaaa";
export const CHANNEL_B = "UCbbbbbbbbbbbbbbbbbbbbbb";
/** Well-formed but not indexed. */
export const CHANNEL_UNKNOWN = "UCzzzzzzzzzzzzzzzzzzzzzz";

export const IDS = {
  markup: "markup00001",
  silent: "silent00001",
  german: "german00001",
  chapters: "chapter0001",
  /** Well-formed but not stored. */
  unknown: "unknownvid1",
} as const;

/** Channel A's videos mentioning "river", besides the markup one. */
export const RIVER_VIDEO_COUNT = 6;
export const MARKUP_TEXT = "beware <script>alert(1)</script> & other markup in a river of captions";

function segments(text: string, wordsPerSegment = 5): VideoRecord["transcripts"][number]["segments"] {
  const words = text.split(/\s+/).filter(Boolean);
  const out = [];
  for (let i = 0; i < words.length; i += wordsPerSegment) {
    out.push({ start: (i / wordsPerSegment) * 2.5, duration: 2.5, text: words.slice(i, i + wordsPerSegment).join(" ") });
  }
  return out;
}

function english(text: string, isGenerated = false): VideoRecord["transcripts"][number] {
  return { language: "English", languageCode: "en", isGenerated, segments: segments(text) };
}

function video(videoId: string, day: number, overrides: Partial<VideoRecord>): VideoRecord {
  return {
    videoId,
    channelId: CHANNEL_A,
    channelTitle: "Alpha Lectures",
    title: `Video ${videoId}`,
    viewCount: 1000 + day,
    publishedAt: new Date(Date.UTC(2021, 0, 1) + day * 86_400_000).toISOString().replace(".000Z", "Z"),
    thumbnail: `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`,
    lengthSeconds: 600,
    transcripts: [],
    ...overrides,
  };
}

export function fixtureRecords(): VideoRecord[] {
  const rivers = Array.from({ length: RIVER_VIDEO_COUNT }, (_, i) =>
    video(`river000${String(i).padStart(3, "0")}`, 10 + i, {
      title: `River lecture ${i}`,
      viewCount: 5000 + i * 100,
      transcripts: [english(`the river number ${i} flows past the old mill and the river keeps flowing to the sea`)],
    }),
  );
  return [
    ...rivers,
    video(IDS.markup, 30, { title: "Markup <b>&</b> friends", viewCount: 90_000, transcripts: [english(MARKUP_TEXT)] }),
    video(IDS.silent, 31, { title: "Silent film", viewCount: 10 }),
    video(IDS.german, 32, {
      channelId: CHANNEL_B,
      channelTitle: "Beta Wissenschaft",
      title: "Die Donau",
      viewCount: 700,
      transcripts: [{ language: "German", languageCode: "de", isGenerated: false, segments: segments("der fluss fließt durch die stadt") }],
    }),
    video(IDS.chapters, 33, {
      channelId: CHANNEL_B,
      channelTitle: "Beta Wissenschaft",
      title: "Energy in plants",
      viewCount: 3_000_000,
      lengthSeconds: 300,
      description: "How plants store energy.",
      keywords: ["plants", "energy"],
      category: "Education",
      chapters: [
        { title: "Intro", startSeconds: 0 },
        { title: "Light", startSeconds: 120 },
      ],
      transcripts: [
        { language: "English (auto-generated)", languageCode: "en", isGenerated: true, segments: segments("auto words about energy and plants") },
        english("photosynthesis turns light into chemical energy inside green plants"),
        { language: "Spanish", languageCode: "es", isGenerated: false, segments: segments("energía de las plantas y la luz") },
      ],
    }),
  ];
}
