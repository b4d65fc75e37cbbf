/**
 * Hand-made VideoRecords for tests: small, readable, and covering the edge
 * cases (markup in text, no transcript, several tracks, two channels).
 */
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";

export const CHANNEL_A = "UCaaaaaaaaaaaaaaaaaaaaaa";
export const CHANNEL_B = "UCbbbbbbbbbbbbbbbbbbbbbb";

export function videoId(n: number): string {
  return `vid${String(n).padStart(8, "0")}`;
}

export function segmentsOf(text: string, wordsPerSegment = 6): VideoRecord["transcripts"][number]["segments"] {
  const words = text.split(/\s+/).filter(Boolean);
  const segments = [];
  for (let i = 0; i < words.length; i += wordsPerSegment) {
    segments.push({ start: (i / wordsPerSegment) * 2.5, duration: 2.5, text: words.slice(i, i + wordsPerSegment).join(" ") });
  }
  return segments;
}

export function makeVideo(n: number, overrides: Partial<VideoRecord> & { text?: string } = {}): VideoRecord {
  const { text, ...rest } = overrides;
  const id = videoId(n);
  return {
    videoId: id,
    channelId: CHANNEL_A,
    channelTitle: "Alpha Lectures",
    channelHandle: "@alphalectures",
    title: `Lecture number ${n}`,
    viewCount: 1000 * n,
    publishedAt: new Date(Date.UTC(2020, 0, 1) + n * 86_400_000).toISOString(),
    thumbnail: `https://i.ytimg.com/vi/${id}/hqdefault.jpg`,
    lengthSeconds: 600,
    transcripts:
      text === undefined
        ? []
        : [{ language: "English", languageCode: "en", isGenerated: false, segments: segmentsOf(text) }],
    ...rest,
  };
}

/** A small corpus with the cases every API test needs. */
export function sampleRecords(): VideoRecord[] {
  return [
    makeVideo(1, { text: "the river flows past the old mill and the river keeps flowing toward the sea" }),
    makeVideo(2, { text: "photosynthesis turns light into chemical energy inside the leaves of green plants" }),
    makeVideo(3, {
      title: "Rivers of the world",
      text: "a short talk about rivers, deltas and the people who live beside a river",
    }),
    makeVideo(4, { text: "beware <script>alert(1)</script> & other markup in a river of captions" }),
    makeVideo(5, { title: "Silent film without captions" }),
    makeVideo(6, {
      channelId: CHANNEL_B,
      channelTitle: "Beta Science",
      channelHandle: "@betascience",
      title: "Die Donau",
      transcripts: [
        { language: "German", languageCode: "de", isGenerated: false, segments: segmentsOf("der fluss fließt durch die stadt") },
      ],
    }),
    makeVideo(7, {
      channelId: CHANNEL_B,
      channelTitle: "Beta Science",
      channelHandle: "@betascience",
      title: "Energy in plants",
      chapters: [
        { title: "Intro", startSeconds: 0 },
        { title: "Light", startSeconds: 120 },
      ],
      description: "How plants store energy.",
      keywords: ["plants", "energy"],
      transcripts: [
        { language: "English (auto-generated)", languageCode: "en", isGenerated: true, segments: segmentsOf("auto words about energy and plants and light") },
        { language: "English", languageCode: "en", isGenerated: false, segments: segmentsOf("manual words about energy in plants and sunlight") },
        { language: "Spanish", languageCode: "es", isGenerated: false, segments: segmentsOf("energía de las plantas y la luz") },
      ],
    }),
  ];
}
