// Over 300 lines: one generator whose random streams are drawn in a fixed order; split up, that order (and so every corpus) would hang on several files.
/**
 * A deterministic, random-access corpus of YouTube-like videos whose
 * transcripts are generated from real English (a Markov chain over the
 * Brown corpus).
 *
 * Nothing per video is stored: video i is regenerated from (seed, i) in time
 * proportional to its size, through independent random streams for its plan,
 * text, timing, caption cuts and metadata. So records are byte-identical for
 * the same options, independent of the order they are asked for, and a
 * 500,000-video corpus costs no more memory than a 5-video one (the chain
 * plus a few numbers per channel).
 */
import type { ChapterRecord, TranscriptRecord, VideoRecord } from "../artifact/contract/index.js";
import { layoutChannels, type ChannelLayout } from "./channel-layout.js";
import type { ChannelListing, CorpusLookup } from "./corpus-lookup.js";
import { englishSource } from "./english-source.js";
import { FOREIGN_LANGUAGES } from "./foreign-words.js";
import { channelIdFor, decodeVideoId, encodeVideoId, videoIdKey, type VideoIdKey } from "./ids.js";
import { createRandom, type Random } from "./random.js";
import { generateChannelTitle, generateTitle, handleFor } from "./titles.js";
import { TokenBuffer } from "./token-buffer.js";
import { cutSegments, SpeechTimeline } from "./transcript.js";
import { planVideo, type TrackShares, type VideoPlan } from "./video-plan.js";
import { writeTokens, type SentenceSource } from "./vocabulary.js";

/** Fixed so that output never depends on when it is generated. */
export const DEFAULT_REFERENCE_DATE = "2026-01-01T00:00:00Z";

export interface SyntheticCorpusOptions {
  /** Any non-negative safe integer; the same seed and options give byte-identical records. Required. */
  seed: number;
  /** Number of videos, 1 to 50,000,000. Required. */
  videos: number;
  /** Number of channels, 1 to `videos`. Default: √videos rounded (55 for 3,000 videos, 707 for 500,000). */
  channels?: number;
  /** Videos are published over the 10 years before this instant. Default `DEFAULT_REFERENCE_DATE`. */
  referenceDate?: string | Date;
  /** Mean words of speech per video (log-normal, long tail). Default 1,400. */
  meanTranscriptWords?: number;
  /** Share of videos without any transcript. Default 0.02. */
  noTranscriptShare?: number;
  /** Share of videos whose only transcript is Spanish, German or French word salad (see foreign-words.ts). Default 0.03. */
  nonEnglishShare?: number;
  /** Share of videos with both a manual and an auto-generated English track. Default 0.15. */
  bothEnglishShare?: number;
  /** Share of videos with only a manual English track; the rest have only an auto-generated one. Default 0.30. */
  manualEnglishShare?: number;
  /** Where English sentences come from. Default: the Brown-corpus Markov chain, trained once per process. */
  english?: SentenceSource;
}

export interface SyntheticChannel {
  channelId: string;
  title: string;
  handle: string;
  videoCount: number;
}

export interface SyntheticCorpus extends CorpusLookup {
  readonly seed: number;
  readonly videoCount: number;
  /** Biggest first. */
  readonly channels: readonly SyntheticChannel[];
  /** Always present here: the record without its transcripts' text. */
  videoMetadata(videoId: string): VideoRecord | undefined;
  /** The record of video `index` (0 ≤ index < videoCount). */
  videoAt(index: number): VideoRecord;
  videoIdAt(index: number): string;
  indexOfVideoId(videoId: string): number | undefined;
  /** Ids of the channel's videos, newest first; empty for an unknown channel. */
  channelVideoIds(channelId: string): string[];
}

// Independent random streams per video, so changing how one part is generated leaves the others unchanged.
const STREAM = { text: 1, timing: 2, manual: 3, generated: 4, meta: 5, channel: 6 } as const;
const CATEGORIES = [
  "Education", "Science & Technology", "People & Blogs", "Entertainment", "News & Politics", "Howto & Style",
  "Gaming", "Music", "Comedy", "Film & Animation", "Sports", "Travel & Events", "Autos & Vehicles", "Pets & Animals",
];

export function createSyntheticCorpus(options: SyntheticCorpusOptions): SyntheticCorpus {
  const g = corpusGenerator(options);
  const { seed, videos, idKey, channels } = g;
  const videoAt = (index: number): VideoRecord => buildVideo(g, index, true);
  const videoIdAt = (index: number): string => {
    checkIndex(g, index);
    return encodeVideoId(idKey, index);
  };
  const indexOfVideoId = (videoId: string): number | undefined => {
    const index = decodeVideoId(idKey, videoId);
    return index !== undefined && index < videos ? index : undefined;
  };
  const channelVideoIds = (channelId: string): string[] => videoIdsOfChannel(g, channelId);
  const listing = (c: number | undefined): ChannelListing | undefined => {
    if (c === undefined) return undefined;
    const channel = channels[c] as SyntheticChannel;
    return { channelId: channel.channelId, title: channel.title, handle: channel.handle, videoIds: channelVideoIds(channel.channelId) };
  };

  return {
    seed,
    videoCount: videos,
    channels,
    videoAt,
    videoIdAt,
    indexOfVideoId,
    channelVideoIds,
    video: (videoId) => {
      const index = indexOfVideoId(videoId);
      return index === undefined ? undefined : videoAt(index);
    },
    videoMetadata: (videoId) => {
      const index = indexOfVideoId(videoId);
      return index === undefined ? undefined : buildVideo(g, index, false);
    },
    channel: (channelId) => listing(g.channelIndex.get(channelId)),
    channelByHandle: (handle) => listing(g.handleIndex.get((handle.startsWith("@") ? handle : `@${handle}`).toLowerCase())),
  };
}

/** What every video of one corpus is generated from: the checked options, the channels, and scratch space. */
interface Generator {
  readonly seed: number;
  readonly videos: number;
  readonly layout: ChannelLayout;
  readonly referenceSeconds: number;
  readonly meanWords: number;
  readonly shares: TrackShares;
  readonly english: SentenceSource;
  readonly idKey: VideoIdKey;
  readonly channels: SyntheticChannel[];
  readonly channelIndex: Map<string, number>;
  readonly handleIndex: Map<string, number>;
  readonly categories: string[];
  /** Scratch space reused by every record; generation is synchronous, so one set suffices. */
  readonly tokens: TokenBuffer;
  readonly timeline: SpeechTimeline;
}

/** The options checked (each with an exact message), and the corpus-wide parts made once. */
function corpusGenerator(options: SyntheticCorpusOptions): Generator {
  const { seed, videos } = options;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`Expected the "seed" option to be a non-negative safe integer, got ${seed}`);
  const channelCount = options.channels ?? Math.max(1, Math.round(Math.sqrt(videos)));
  const layout: ChannelLayout = layoutChannels(videos, channelCount, seed);
  const referenceMs = new Date(options.referenceDate ?? DEFAULT_REFERENCE_DATE).getTime();
  if (!Number.isFinite(referenceMs)) throw new Error(`Expected the "referenceDate" option to be a valid date, got ${String(options.referenceDate)}`);
  const meanWords = options.meanTranscriptWords ?? 1400;
  if (!(meanWords >= 50 && meanWords <= 50_000)) throw new Error(`Expected the "meanTranscriptWords" option to be a number from 50 to 50000, got ${meanWords}`);
  const shares: TrackShares = {
    none: share(options.noTranscriptShare, 0.02, "noTranscriptShare"),
    foreign: share(options.nonEnglishShare, 0.03, "nonEnglishShare"),
    both: share(options.bothEnglishShare, 0.15, "bothEnglishShare"),
    manual: share(options.manualEnglishShare, 0.3, "manualEnglishShare"),
  };
  if (shares.none + shares.foreign + shares.both + shares.manual > 1 + 1e-9) {
    throw new Error("Expected the transcript shares (noTranscriptShare + nonEnglishShare + bothEnglishShare + manualEnglishShare) to add up to at most 1");
  }
  const english = options.english ?? englishSource();
  const idKey = videoIdKey(seed);
  const channels = buildChannels(seed, layout, english);
  return {
    seed,
    videos,
    layout,
    referenceSeconds: Math.floor(referenceMs / 1000),
    meanWords,
    shares,
    english,
    idKey,
    channels,
    channelIndex: new Map(channels.map((channel, c) => [channel.channelId, c])),
    handleIndex: new Map(channels.map((channel, c) => [channel.handle.toLowerCase(), c])),
    categories: channels.map((_, c) => CATEGORIES[createRandom(seed, c, STREAM.channel, 1).int(CATEGORIES.length)] as string),
    tokens: new TokenBuffer(1 << 16),
    timeline: new SpeechTimeline(),
  };
}

function checkIndex(g: Generator, index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= g.videos) {
    throw new RangeError(`Expected a video index from 0 to ${g.videos - 1}, got ${index}`);
  }
}

function plan(g: Generator, index: number): VideoPlan {
  return planVideo(g.seed, index, g.referenceSeconds, g.meanWords, g.shares, FOREIGN_LANGUAGES.length);
}

interface Speech {
  pace: number;
  music: boolean;
  offset: number;
  seconds: number;
}

/**
 * How long a video runs, from its plan and its timing stream's first draws
 * alone (pace, opening music, outro), so a record without text needs none. Speech
 * lasts the planned words at the speaker's pace; the generated words are
 * then timed to fill exactly that.
 */
function planTiming(seed: number, index: number, p: VideoPlan): { timing: Random; lengthSeconds: number; speech: Speech | undefined } {
  const timing = createRandom(seed, index, STREAM.timing);
  // Per-speaker pace: 1 is about 150 words a minute; 0.85 brisk, 1.2 deliberate.
  const pace = 0.85 + 0.35 * timing.float();
  if (p.tracks === "none") return { timing, lengthSeconds: Math.round((p.words / 2.5) * pace) + 5, speech: undefined };
  // Most videos start talking at once; some open with a few seconds of music.
  const music = timing.chance(0.12);
  const offset = music ? 3 + 12 * timing.float() : 0.2 + 1.5 * timing.float();
  // Room after the last word for an outro.
  const outro = 2 + 20 * timing.float();
  const seconds = p.words * SPEECH_SECONDS_PER_WORD * pace;
  return { timing, lengthSeconds: Math.ceil(offset + seconds + outro), speech: { pace, music, offset, seconds } };
}

/** Video `index`; without `withText`, its tracks are listed with no segments (the text is what costs). */
function buildVideo(g: Generator, index: number, withText: boolean): VideoRecord {
  checkIndex(g, index);
  const videoId = encodeVideoId(g.idKey, index);
  const p = plan(g, index);
  const c = g.layout.channelOf(index);
  const channel = g.channels[c] as SyntheticChannel;
  const foreign = p.tracks === "foreign" ? FOREIGN_LANGUAGES[p.language] : undefined;
  const source = foreign?.source ?? g.english;
  const { timing, lengthSeconds, speech } = planTiming(g.seed, index, p);
  const transcripts = speech === undefined ? [] : videoTracks(g, { index, p, foreign, source, timing, speech, withText });

  const meta = createRandom(g.seed, index, STREAM.meta);
  const title = generateTitle(source, meta, 3, 9);
  const chapters = lengthSeconds >= 600 && meta.chance(0.45) ? makeChapters(source, meta, lengthSeconds) : undefined;
  return {
    videoId,
    channelId: channel.channelId,
    channelTitle: channel.title,
    channelHandle: channel.handle,
    title,
    viewCount: p.viewCount,
    publishedAt: isoSeconds(p.publishedAt),
    thumbnail: `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`,
    lengthSeconds,
    description: makeDescription(source, meta, channel, chapters),
    ...(chapters ? { chapters } : {}),
    keywords: makeKeywords(title, meta),
    category: g.categories[c] as string,
    transcripts,
  };
}

interface TrackInputs {
  index: number;
  p: VideoPlan;
  foreign: (typeof FOREIGN_LANGUAGES)[number] | undefined;
  source: SentenceSource;
  timing: Random;
  speech: Speech;
  withText: boolean;
}

/** A talking video's tracks (manual, auto-generated or both, as planned), with their segments when `withText`. */
function videoTracks(g: Generator, inputs: TrackInputs): TranscriptRecord[] {
  const { index, p, foreign, source, timing, speech } = inputs;
  const transcripts: TranscriptRecord[] = [];
  const manual = p.tracks === "manual" || p.tracks === "both" || (foreign !== undefined && !p.foreignGenerated);
  const generated = p.tracks === "generated" || p.tracks === "both" || (foreign !== undefined && p.foreignGenerated);
  const name = foreign?.name ?? "English";
  const code = foreign?.code ?? "en";
  if (!inputs.withText) {
    if (manual) transcripts.push({ language: name, languageCode: code, isGenerated: false, segments: [] });
    if (generated) transcripts.push({ language: `${name} (auto-generated)`, languageCode: code, isGenerated: true, segments: [] });
    return transcripts;
  }
  const { tokens, timeline } = g;
  const text = createRandom(g.seed, index, STREAM.text);
  tokens.clear();
  for (let words = 0; words < p.words; ) words += source.generateSentence(text, tokens);
  const { music, offset } = speech;
  timeline.fill(source.vocabulary, tokens, timing, offset, speech.pace);
  timeline.stretchTo(offset + speech.seconds, tokens.length);
  if (manual) {
    const segments = cutSegments(source.vocabulary, tokens, timeline, createRandom(g.seed, index, STREAM.manual), "manual");
    transcripts.push({ language: name, languageCode: code, isGenerated: false, segments });
  }
  if (generated) {
    const segments = cutSegments(source.vocabulary, tokens, timeline, createRandom(g.seed, index, STREAM.generated), "generated");
    // Speech recognition labels the opening music, as YouTube's auto-captions do.
    if (music) segments.unshift({ start: 0, duration: Math.round(offset * 1000) / 1000, text: "[Music]" });
    transcripts.push({ language: `${name} (auto-generated)`, languageCode: code, isGenerated: true, segments });
  }
  return transcripts;
}

/** Ids of the channel's videos, newest first; empty for an unknown channel. */
function videoIdsOfChannel(g: Generator, channelId: string): string[] {
  const c = g.channelIndex.get(channelId);
  if (c === undefined) return [];
  const size = g.layout.sizes[c] as number;
  const entries: { index: number; publishedAt: number }[] = [];
  for (let rank = 0; rank < size; rank++) {
    const index = g.layout.indexAt(c, rank);
    entries.push({ index, publishedAt: plan(g, index).publishedAt });
  }
  entries.sort((x, y) => y.publishedAt - x.publishedAt || x.index - y.index);
  return entries.map((entry) => encodeVideoId(g.idKey, entry.index));
}

/** Seconds of speech per planned word at pace 1: 150 words a minute. */
const SPEECH_SECONDS_PER_WORD = 0.4;

function share(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(v >= 0 && v <= 1)) throw new Error(`Expected the "${name}" option to be a number from 0 to 1, got ${v}`);
  return v;
}

function buildChannels(seed: number, layout: ChannelLayout, english: SentenceSource): SyntheticChannel[] {
  const titles = new Set<string>();
  const handles = new Set<string>();
  const ids = new Set<string>();
  return layout.sizes.map((videoCount, c) => {
    const random = createRandom(seed, c, STREAM.channel);
    let title = generateChannelTitle(english, random);
    for (let n = 2; titles.has(title); n++) title = `${title.replace(/ \d+$/, "")} ${n}`;
    titles.add(title);
    const handle = handleFor(title, handles);
    handles.add(handle.toLowerCase());
    const channelId = channelIdFor(seed, c);
    // 128 random bits do not collide in practice; fail loudly rather than serve two channels under one id.
    if (ids.has(channelId)) throw new Error(`Channel id collision for seed ${seed}`);
    ids.add(channelId);
    return { channelId, title, handle, videoCount };
  });
}

/** 3-10 chapters on roughly even slots, the first at 0:00 as YouTube requires. */
function makeChapters(source: SentenceSource, random: Random, lengthSeconds: number): ChapterRecord[] {
  const count = random.range(3, Math.max(3, Math.min(10, Math.floor(lengthSeconds / 120))));
  const slot = lengthSeconds / count;
  const chapters: ChapterRecord[] = [];
  for (let k = 0; k < count; k++) {
    // Jitter within ±30% of a slot keeps chapters ordered and far apart.
    const startSeconds = k === 0 ? 0 : Math.floor(slot * (k + 0.6 * random.float() - 0.3));
    chapters.push({ title: generateTitle(source, random, 2, 5), startSeconds });
  }
  return chapters;
}

const descriptionTokens = new TokenBuffer(1024);

function makeDescription(source: SentenceSource, random: Random, channel: SyntheticChannel, chapters: ChapterRecord[] | undefined): string {
  descriptionTokens.clear();
  const sentences = random.range(1, 3);
  for (let k = 0; k < sentences; k++) source.generateSentence(random, descriptionTokens);
  let description = writeTokens(source.vocabulary, descriptionTokens.ids, 0, descriptionTokens.length);
  if (chapters) description += "\n\n" + chapters.map((chapter) => `${clock(chapter.startSeconds)} ${chapter.title}`).join("\n");
  if (random.chance(0.3)) description += `\n\nSubscribe to ${channel.title} for more.`;
  return description;
}

function makeKeywords(title: string, random: Random): string[] {
  const words = [...new Set(title.toLowerCase().split(" ").filter((word) => /^[\p{L}]{4,}$/u.test(word)))];
  return words.slice(0, random.range(2, 6));
}

/** 75 → "1:15", 3725 → "1:02:05", as YouTube writes chapter times. */
function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** ISO 8601 in whole seconds, e.g. 2018-08-02T13:00:08Z. */
function isoSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(".000Z", "Z");
}
