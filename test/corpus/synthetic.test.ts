import { beforeAll, describe, expect, it } from "vitest";
import { CHANNEL_ID_PATTERN, VIDEO_ID_PATTERN, VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { createDemoCorpus, DEMO_CORPUS_OPTIONS } from "../../pipeline/corpus/demo.js";
import { createSyntheticCorpus, type SyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { countWords, foldWhitespace, tokenize } from "../../pipeline/artifact/text/text.js";

// Control characters other than tab, newline and carriage return (the set pipeline/artifact/text/text.ts strips).
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const SIZE = 300;

let corpus: SyntheticCorpus;
let records: VideoRecord[];

beforeAll(() => {
  corpus = createSyntheticCorpus({ seed: 1, videos: SIZE, channels: 12 });
  records = Array.from({ length: SIZE }, (_, i) => corpus.videoAt(i));
});

describe("a synthetic corpus", () => {
  it("gives byte-identical records for the same seed and different ones for another seed", () => {
    const again = createSyntheticCorpus({ seed: 1, videos: SIZE, channels: 12 });
    const other = createSyntheticCorpus({ seed: 2, videos: SIZE, channels: 12 });
    for (let i = 0; i < 40; i++) {
      expect(JSON.stringify(again.videoAt(i))).toBe(JSON.stringify(records[i]));
      const theirs = other.videoAt(i);
      expect(theirs.videoId).not.toBe(records[i]?.videoId);
      expect(theirs.title === records[i]?.title && theirs.description === records[i]?.description).toBe(false);
    }
    expect(again.channels).toEqual(corpus.channels);
  });

  it("regenerates any video in any order exactly as in sequence", () => {
    const fresh = createSyntheticCorpus({ seed: 1, videos: SIZE, channels: 12 });
    for (const i of [299, 3, 150, 0, 77, 298, 3]) expect(fresh.videoAt(i)).toEqual(records[i]);
  });

  it("gives each video's record without caption text, all else equal to the full record", () => {
    const fresh = createSyntheticCorpus({ seed: 1, videos: SIZE, channels: 12 });
    for (const record of records) {
      const withoutText = { ...record, transcripts: record.transcripts.map((t) => ({ ...t, segments: [] })) };
      expect(fresh.videoMetadata(record.videoId)).toEqual(withoutText);
    }
  });

  it("makes records that pass the contract schema", () => {
    for (const record of records) expect(() => VideoRecord.parse(record)).not.toThrow();
  });

  it("uses valid, distinct, invertible video ids and valid channel ids and handles", () => {
    const ids = new Set(records.map((record) => record.videoId));
    expect(ids.size).toBe(SIZE);
    records.forEach((record, i) => {
      expect(record.videoId).toMatch(VIDEO_ID_PATTERN);
      expect(corpus.videoIdAt(i)).toBe(record.videoId);
      expect(corpus.indexOfVideoId(record.videoId)).toBe(i);
      expect(record.thumbnail).toBe(`https://i.ytimg.com/vi/${record.videoId}/hqdefault.jpg`);
    });
    expect(corpus.indexOfVideoId("dQw4w9WgXcQ")).toBeUndefined();
    // Ids depend on the seed and index only; a smaller corpus of the same seed shares its prefix and knows no more.
    const small = createSyntheticCorpus({ seed: 1, videos: 10, channels: 2 });
    expect(small.videoIdAt(9)).toBe(records[9]?.videoId);
    expect(small.indexOfVideoId(records[200]?.videoId ?? "")).toBeUndefined();
    const handles = new Set(corpus.channels.map((channel) => channel.handle.toLowerCase()));
    expect(handles.size).toBe(12);
    for (const channel of corpus.channels) {
      expect(channel.channelId).toMatch(CHANNEL_ID_PATTERN);
      expect(channel.handle).toMatch(/^@[A-Za-z0-9]{3,30}$/);
    }
  });

  it("skews channel sizes: a few big channels, every channel with at least one video", () => {
    const sizes = corpus.channels.map((channel) => channel.videoCount);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(SIZE);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
    expect(sizes[0]).toBeGreaterThan(4 * (sizes[sizes.length - 1] as number));
    const counted = new Map<string, number>();
    for (const record of records) counted.set(record.channelId, (counted.get(record.channelId) ?? 0) + 1);
    for (const channel of corpus.channels) expect(counted.get(channel.channelId)).toBe(channel.videoCount);
  });

  it("lists a channel's videos newest first and finds channels by id and by handle", () => {
    const channel = corpus.channels[1];
    if (!channel) throw new Error("expected a second channel");
    const listing = corpus.channel(channel.channelId);
    expect(listing?.videoIds).toHaveLength(channel.videoCount);
    const dates = (listing?.videoIds ?? []).map((id) => corpus.video(id)?.publishedAt ?? "");
    expect([...dates].sort().reverse()).toEqual(dates);
    for (const id of listing?.videoIds ?? []) expect(corpus.video(id)?.channelId).toBe(channel.channelId);
    expect(corpus.channelByHandle(channel.handle.toUpperCase())).toEqual(listing);
    expect(corpus.channelByHandle(channel.handle.slice(1))).toEqual(listing);
    expect(corpus.channel("UCxxxxxxxxxxxxxxxxxxxxxx")).toBeUndefined();
    expect(corpus.video("xxxxxxxxxxx")).toBeUndefined();
  });

  it("averages about 1,400 words per English transcript with a long tail", () => {
    const words = records.flatMap((record) => {
      const english = record.transcripts.find((t) => t.languageCode === "en");
      return english ? [english.segments.reduce((sum, segment) => sum + countWords(segment.text), 0)] : [];
    });
    const mean = words.reduce((a, b) => a + b, 0) / words.length;
    // The sample mean of 300 log-normal lengths has a standard error of about 110 words.
    expect(mean).toBeGreaterThan(1150);
    expect(mean).toBeLessThan(1750);
    expect(Math.max(...words)).toBeGreaterThan(6000);
    const lengths = records.map((record) => record.lengthSeconds);
    expect(Math.max(...lengths)).toBeGreaterThan(3600);
  });

  it("gives transcripts increasing start times, caption-sized lines and a length that covers them", () => {
    // Counted, not asserted per line: hundreds of thousands of expect() calls would dominate the run time.
    let lines = 0;
    let captionSized = 0;
    let overlaps = 0;
    let problems = 0;
    for (const record of records) {
      for (const transcript of record.transcripts) {
        transcript.segments.forEach((segment, k) => {
          lines++;
          const words = countWords(segment.text);
          if (words >= 5 && words <= 14) captionSized++;
          if (!(segment.duration > 0) || segment.start + segment.duration > record.lengthSeconds) problems++;
          const next = transcript.segments[k + 1];
          if (next) {
            if (!(next.start > segment.start)) problems++;
            if (segment.start + segment.duration > next.start + 1e-6) overlaps++;
          }
        });
      }
    }
    expect(problems).toBe(0);
    expect(captionSized / lines).toBeGreaterThan(0.95);
    // Some lines linger into the next, as real captions do, but not most.
    expect(overlaps / lines).toBeGreaterThan(0.03);
    expect(overlaps / lines).toBeLessThan(0.3);
  });

  it("has the configured shares of videos without transcripts, in other languages and with two English tracks", () => {
    const many = createSyntheticCorpus({ seed: 5, videos: 4000, meanTranscriptWords: 60 });
    let none = 0;
    let foreign = 0;
    let both = 0;
    for (let i = 0; i < many.videoCount; i++) {
      const { transcripts } = many.videoAt(i);
      if (transcripts.length === 0) none++;
      else if (transcripts.every((t) => t.languageCode !== "en")) foreign++;
      if (transcripts.length === 2) {
        both++;
        expect(transcripts.map((t) => [t.language, t.isGenerated])).toEqual([["English", false], ["English (auto-generated)", true]]);
      }
    }
    // Expected 80, 120 and 600 of 4000; the bounds are about four standard deviations wide.
    expect(none).toBeGreaterThan(45);
    expect(none).toBeLessThan(120);
    expect(foreign).toBeGreaterThan(75);
    expect(foreign).toBeLessThan(170);
    expect(both).toBeGreaterThan(500);
    expect(both).toBeLessThan(700);
  });

  it("labels non-English tracks with their language and fills them with that language's words", () => {
    const many = createSyntheticCorpus({ seed: 5, videos: 2000, meanTranscriptWords: 60 });
    const languages = new Set<string>();
    for (let i = 0; i < many.videoCount; i++) {
      for (const transcript of many.videoAt(i).transcripts) {
        if (transcript.languageCode === "en") continue;
        languages.add(transcript.languageCode);
        const name = { es: "Spanish", de: "German", fr: "French" }[transcript.languageCode];
        expect(transcript.language).toBe(transcript.isGenerated ? `${name} (auto-generated)` : name);
      }
    }
    expect([...languages].sort()).toEqual(["de", "es", "fr"]);
  });

  it("writes distinct documents: a 4-word fragment of a transcript is usually found in no other video", () => {
    const grams = new Map<string, number>();
    const texts = records.map((record) => {
      const english = record.transcripts.find((t) => t.languageCode === "en");
      return english ? tokenize(english.segments.map((s) => s.text).join(" ")) : [];
    });
    texts.forEach((terms, video) => {
      for (let i = 0; i + 4 <= terms.length; i++) {
        const key = terms.slice(i, i + 4).join(" ");
        const owner = grams.get(key);
        if (owner === undefined) grams.set(key, video);
        else if (owner !== video) grams.set(key, -1); // seen in two videos
      }
    });
    let samples = 0;
    let unique = 0;
    for (let video = 0; video < texts.length; video += 2) {
      const terms = texts[video] as string[];
      if (terms.length < 40) continue;
      const at = (video * 7919) % (terms.length - 4);
      samples++;
      if (grams.get(terms.slice(at, at + 4).join(" ")) === video) unique++;
    }
    expect(samples).toBeGreaterThan(100);
    expect(unique / samples).toBeGreaterThan(0.7);
  });

  it("keeps control characters out of all text and captions on one folded line", () => {
    for (const record of records) {
      expect(JSON.stringify(record)).not.toMatch(/\\u00[01]|\\u007f|\\t|\\r/i);
      for (const value of [record.title, record.channelTitle, record.description ?? "", ...(record.keywords ?? [])]) {
        expect(value).not.toMatch(CONTROL);
      }
      const unfolded = record.transcripts.flatMap((t) => t.segments).filter((segment) => segment.text !== foldWhitespace(segment.text));
      expect(unfolded).toEqual([]);
    }
  });

  it("spreads publication dates over the ten years before the reference date", () => {
    const times = records.map((record) => Date.parse(record.publishedAt));
    const reference = Date.parse("2026-01-01T00:00:00Z");
    expect(Math.max(...times)).toBeLessThan(reference);
    expect(Math.min(...times)).toBeGreaterThan(reference - 10.01 * 365.25 * 86400_000);
    expect(Math.min(...times)).toBeLessThan(reference - 5 * 365.25 * 86400_000);
    const views = records.map((record) => record.viewCount).sort((a, b) => a - b);
    expect(views[SIZE / 2]).toBeGreaterThan(500);
    expect(views[SIZE / 2]).toBeLessThan(20_000);
  });

  it("rejects bad options with exact messages", () => {
    expect(() => createSyntheticCorpus({ seed: -1, videos: 10 })).toThrow('Expected the "seed" option to be a non-negative safe integer, got -1');
    expect(() => createSyntheticCorpus({ seed: 1, videos: 0 })).toThrow('Expected the "videos" option to be an integer from 1 to 50000000, got 0');
    expect(() => corpus.videoAt(SIZE)).toThrow(`Expected a video index from 0 to ${SIZE - 1}, got ${SIZE}`);
  });
});

describe("the demo corpus", () => {
  it("has the documented size and channels", () => {
    const demo = createDemoCorpus();
    expect(demo.videoCount).toBe(DEMO_CORPUS_OPTIONS.videos);
    expect(demo.channels).toHaveLength(DEMO_CORPUS_OPTIONS.channels);
    expect(() => VideoRecord.parse(demo.videoAt(DEMO_CORPUS_OPTIONS.videos - 1))).not.toThrow();
  });
});
