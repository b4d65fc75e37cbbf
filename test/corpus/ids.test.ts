import { describe, expect, it } from "vitest";
import { CHANNEL_ID_PATTERN, VIDEO_ID_PATTERN } from "../../pipeline/artifact/contract/contract.js";
import { layoutChannels } from "../../pipeline/corpus/channel-layout.js";
import { channelIdFor, decodeVideoId, encodeVideoId, videoIdKey } from "../../pipeline/corpus/ids.js";

describe("video and channel ids", () => {
  it("encodes video indexes as distinct YouTube-shaped ids that decode back", () => {
    const key = videoIdKey(42);
    const seen = new Set<string>();
    let bad = 0;
    for (let index = 0; index < 100_000; index++) {
      const id = encodeVideoId(key, index);
      if (!VIDEO_ID_PATTERN.test(id) || decodeVideoId(key, id) !== index) bad++;
      seen.add(id);
    }
    expect(bad).toBe(0);
    expect(seen.size).toBe(100_000);
    // Like YouTube's, the last character carries 4 bits.
    expect(encodeVideoId(key, 7).at(-1)).toMatch(/[AEIMQUYcgkosw048]/);
  });

  it("decodes ids of another seed, malformed ids and foreign ids to nothing", () => {
    const key = videoIdKey(1);
    expect(decodeVideoId(key, encodeVideoId(videoIdKey(2), 5))).toBeUndefined();
    expect(decodeVideoId(key, "dQw4w9WgXcQ")).toBeUndefined();
    expect(decodeVideoId(key, "short")).toBeUndefined();
    expect(decodeVideoId(key, "abc!efghijk")).toBeUndefined();
  });

  it("makes channel ids of UC and 22 characters, different per seed and channel", () => {
    const ids = new Set<string>();
    for (let c = 0; c < 1000; c++) {
      const id = channelIdFor(9, c);
      expect(CHANNEL_ID_PATTERN.test(id)).toBe(true);
      ids.add(id);
    }
    expect(ids.size).toBe(1000);
    expect(channelIdFor(10, 0)).not.toBe(channelIdFor(9, 0));
  });
});

describe("the channel layout", () => {
  it("gives every channel at least one video with Zipf-like skew", () => {
    const layout = layoutChannels(10_000, 100, 3);
    expect(layout.sizes.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(Math.min(...layout.sizes)).toBeGreaterThanOrEqual(1);
    expect(layout.sizes[0]).toBeGreaterThan(10 * (layout.sizes[50] as number));
  });

  it("maps indexes to (channel, rank) and back", () => {
    const layout = layoutChannels(5003, 17, 8);
    const seen = new Set<number>();
    for (let c = 0; c < 17; c++) {
      for (let rank = 0; rank < (layout.sizes[c] as number); rank++) {
        const index = layout.indexAt(c, rank);
        expect(layout.channelOf(index)).toBe(c);
        expect(layout.rankOf(index)).toBe(rank);
        seen.add(index);
      }
    }
    expect(seen.size).toBe(5003);
  });

  it("rejects more channels than videos with an exact message", () => {
    expect(() => layoutChannels(3, 4, 1)).toThrow('Expected the "channels" option to be an integer from 1 to the number of videos (3), got 4');
  });
});
