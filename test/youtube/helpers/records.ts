/**
 * Hand-made corpus for the client and stand-in tests: a few videos with
 * real-looking captions (apostrophes, ampersands, angle brackets, so the
 * double escaping is exercised), and a channel of 100 uploads for crawling.
 */
import type { SegmentRecord, TranscriptRecord, VideoRecord } from "../../../pipeline/artifact/contract/contract.js";
import { inMemoryCorpus, type StandinChannel, type StandinCorpus } from "../../../scripts/youtube-standin/corpus.js";

export const COOKING_CHANNEL = "UCkitchenNotes0000000001";
export const LARGE_CHANNEL = "UCbigArchive00000000000A";

const LINES = [
  "Welcome back to the kitchen, today we're making bread.",
  "You'll need flour, water, salt & a little patience.",
  'Mix until it looks "shaggy" — that\'s the word bakers use.',
  "Rest it for 30 minutes (30 < 45, so be patient).",
  "Shape it, proof it, and bake at 230 °C for about 40 minutes.",
];

export function segmentsOf(lines: readonly string[], step = 4.25): SegmentRecord[] {
  return lines.map((text, i) => ({ start: Math.round(i * step * 1000) / 1000, duration: 4, text }));
}

export function transcript(languageCode: string, language: string, isGenerated: boolean, lines: readonly string[]): TranscriptRecord {
  return { languageCode, language, isGenerated, segments: segmentsOf(lines) };
}

export function makeVideo(overrides: Partial<VideoRecord> & Pick<VideoRecord, "videoId">): VideoRecord {
  return {
    channelId: COOKING_CHANNEL,
    channelTitle: "Kitchen Notes",
    channelHandle: "@kitchennotes",
    title: "Sourdough for Beginners",
    viewCount: 48_213,
    publishedAt: "2024-03-05T17:30:00Z",
    thumbnail: `https://i.ytimg.com/vi/${overrides.videoId}/sddefault.jpg`,
    lengthSeconds: 754,
    description: "Everything you need for a first loaf.",
    keywords: ["bread", "sourdough"],
    category: "Howto & Style",
    chapters: [
      { title: "Ingredients", startSeconds: 0 },
      { title: "Mixing", startSeconds: 61.5 },
      { title: "Baking", startSeconds: 402 },
    ],
    transcripts: [
      transcript("en", "English", false, LINES),
      transcript("en", "English (auto-generated)", true, LINES.map((l) => l.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ""))),
      transcript("de", "German", false, ["Willkommen zurück in der Küche.", "Heute backen wir Brot."]),
    ],
    ...overrides,
  };
}

export const BREAD = makeVideo({ videoId: "bread000001" });
/** Only an auto-generated English track. */
export const ASR_ONLY = makeVideo({
  videoId: "asrOnly0001",
  title: "Knife Skills, Unscripted",
  transcripts: [transcript("en", "English (auto-generated)", true, ["so today we are going to talk about knives", "hold it like this"])],
});
/** No captions at all. */
export const SILENT = makeVideo({ videoId: "silent00001", title: "Ambient Kitchen Sounds", transcripts: [] });

function bigChannelVideos(count: number): VideoRecord[] {
  return Array.from({ length: count }, (_, i) =>
    makeVideo({
      videoId: `big${String(i).padStart(8, "0")}`,
      channelId: LARGE_CHANNEL,
      channelTitle: "Big Archive",
      channelHandle: "@bigarchive",
      title: `Archive episode ${i + 1}`,
      // One upload a day, episode 100 newest; views vary over orders of magnitude.
      publishedAt: new Date(Date.UTC(2023, 0, 1) + i * 86_400_000).toISOString().replace(/\.000Z$/, "Z"),
      viewCount: i === 0 ? 0 : i === 1 ? 1 : i * 37_771,
      lengthSeconds: 60 + i * 61,
    }),
  );
}

export interface TestCorpus {
  corpus: StandinCorpus;
  videos: VideoRecord[];
  channels: StandinChannel[];
}

export function testCorpus(): TestCorpus {
  const big = bigChannelVideos(100);
  const videos = [BREAD, ASR_ONLY, SILENT, ...big];
  const channels: StandinChannel[] = [
    { channelId: COOKING_CHANNEL, title: "Kitchen Notes", handle: "@kitchennotes", videoIds: [BREAD.videoId, ASR_ONLY.videoId, SILENT.videoId] },
    { channelId: LARGE_CHANNEL, title: "Big Archive", handle: "@bigarchive", videoIds: big.map((v) => v.videoId) },
  ];
  return { corpus: inMemoryCorpus(videos, channels), videos, channels };
}
