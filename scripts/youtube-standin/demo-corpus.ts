/**
 * A small seeded corpus so the stand-in can run on its own (`npm run
 * standin`). Records are built on demand from their index, so the same seed
 * always gives the same ids, titles and captions. The project's full
 * synthetic generator lives elsewhere and satisfies the same interface.
 */
import { createHash } from "node:crypto";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import type { StandinChannel, StandinCorpus } from "./corpus.js";

const WORDS = (
  "the a we this that it is was and but so then today going make build look really actually " +
  "video review test camera battery screen music guitar recipe garden engine history river " +
  "mountain city light sound quick simple better first last new old small big good great " +
  "people time year way day thing world life hand part place week problem fact idea"
).split(" ");

const TOPICS = ["Review", "Tutorial", "Vlog", "Explained", "Build Log", "Recipe", "Field Trip", "Q&A"];
const VIDEOS_PER_CHANNEL = 40;

function hashId(prefix: string, seed: number, index: number, length: number): string {
  return createHash("sha256").update(`${prefix}:${seed}:${index}`).digest("base64url").slice(0, length);
}

function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function demoCorpus(options: { videos: number; seed: number }): StandinCorpus {
  const { videos, seed } = options;
  const channelCount = Math.max(1, Math.ceil(videos / VIDEOS_PER_CHANNEL));
  const videoIds = Array.from({ length: videos }, (_, i) => hashId("video", seed, i, 11));
  const indexOf = new Map(videoIds.map((id, i) => [id, i]));
  const channels = Array.from({ length: channelCount }, (_, c): StandinChannel => {
    const name = `${WORDS[(c * 7 + seed) % WORDS.length]} ${TOPICS[c % TOPICS.length]} ${c + 1}`;
    return {
      channelId: `UC${hashId("channel", seed, c, 22)}`,
      title: name.replace(/\b\w/g, (m) => m.toUpperCase()),
      handle: `@${name.replace(/[^A-Za-z0-9]/g, "").toLowerCase()}`,
      videoIds: videoIds.filter((_, i) => i % channelCount === c),
    };
  });
  const byChannel = new Map(channels.map((c) => [c.channelId, c]));
  const byHandle = new Map(channels.map((c) => [c.handle, c]));

  const video = (videoId: string): VideoRecord | undefined => {
    const index = indexOf.get(videoId);
    if (index === undefined) return undefined;
    const channel = channels[index % channelCount];
    if (!channel) return undefined;
    const random = rng(seed * 1_000_003 + index);
    const sentence = (n: number): string => {
      const words = Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)] ?? "the");
      return words.join(" ");
    };
    const cues = 20 + Math.floor(random() * 60);
    const segments = Array.from({ length: cues }, (_, i) => ({ start: i * 3.2, duration: 3.1, text: sentence(5 + Math.floor(random() * 8)) }));
    const lengthSeconds = Math.ceil(cues * 3.2);
    return {
      videoId,
      channelId: channel.channelId,
      channelTitle: channel.title,
      channelHandle: channel.handle,
      title: `${sentence(4).replace(/^\w/, (m) => m.toUpperCase())} - ${TOPICS[index % TOPICS.length]}`,
      viewCount: Math.floor(random() ** 3 * 5_000_000),
      publishedAt: new Date(Date.UTC(2024, 0, 1) + index * 3_600_000 * 7).toISOString().replace(/\.000Z$/, "Z"),
      thumbnail: `https://i.ytimg.com/vi/${videoId}/sddefault.jpg`,
      lengthSeconds,
      description: `${sentence(12)}.`,
      chapters: [
        { title: "Intro", startSeconds: 0 },
        { title: "Main part", startSeconds: Math.floor(lengthSeconds / 3) },
      ],
      keywords: [TOPICS[index % TOPICS.length] ?? "video"],
      category: "Education",
      transcripts: [{ language: "English (auto-generated)", languageCode: "en", isGenerated: true, segments }],
    };
  };
  return { video, channel: (id) => byChannel.get(id), channelByHandle: (handle) => byHandle.get(handle.toLowerCase()) };
}

/** Some ids of a demo corpus, for printing examples. */
export function demoVideoIds(options: { videos: number; seed: number }, count: number): string[] {
  return Array.from({ length: Math.min(count, options.videos) }, (_, i) => hashId("video", options.seed, i, 11));
}
