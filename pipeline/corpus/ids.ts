/**
 * YouTube-shaped ids that are deterministic from the seed.
 *
 * A video id is the video's index run through a keyed 64-bit Feistel
 * permutation and written like YouTube's own: 11 characters of base64url
 * carrying 64 bits, so the last character is one of 16 ("AEIMQUYcgkosw048").
 * A permutation is a bijection, so ids are distinct without a set of seen
 * ids, and decoding one gives the index back: the stand-in can look up any
 * id in O(1) without holding the corpus.
 */
import { createRandom, mix32 } from "./random.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUE = new Map([...ALPHABET].map((char, value) => [char, value]));
const ROUNDS = 4;

/** Round keys of the video-id permutation for one corpus seed. */
export interface VideoIdKey {
  readonly rounds: Uint32Array;
}

export function videoIdKey(seed: number): VideoIdKey {
  const random = createRandom(seed, 0x1d5);
  const rounds = new Uint32Array(ROUNDS);
  for (let r = 0; r < ROUNDS; r++) rounds[r] = random.uint32();
  return { rounds };
}

/** The id of video `index` (0 ≤ index < 2^32). */
export function encodeVideoId(key: VideoIdKey, index: number): string {
  let left = 0;
  let right = index >>> 0;
  for (let r = 0; r < ROUNDS; r++) {
    const next = (left ^ mix32(right ^ (key.rounds[r] as number))) >>> 0;
    left = right;
    right = next;
  }
  // 64 bits, most significant first: ten 6-bit characters, then 4 bits padded with two zero bits.
  let out = "";
  for (let shift = 26; shift >= 2; shift -= 6) out += ALPHABET[(left >>> shift) & 63];
  out += ALPHABET[((left & 3) << 4) | (right >>> 28)];
  for (let shift = 22; shift >= 4; shift -= 6) out += ALPHABET[(right >>> shift) & 63];
  out += ALPHABET[(right & 15) << 2];
  return out;
}

/** The index whose id is `id`, or undefined when no index below 2^32 has it. */
export function decodeVideoId(key: VideoIdKey, id: string): number | undefined {
  if (id.length !== 11) return undefined;
  const values: number[] = [];
  for (const char of id) {
    const value = VALUE.get(char);
    if (value === undefined) return undefined;
    values.push(value);
  }
  const lastValue = values[10] as number;
  if ((lastValue & 3) !== 0) return undefined;
  let left = 0;
  for (let k = 0; k < 5; k++) left = left * 64 + (values[k] as number);
  const bridge = values[5] as number;
  left = (left * 4 + (bridge >>> 4)) >>> 0;
  let right = bridge & 15;
  for (let k = 6; k < 10; k++) right = right * 64 + (values[k] as number);
  right = (right * 16 + (lastValue >>> 2)) >>> 0;
  for (let r = ROUNDS - 1; r >= 0; r--) {
    const previous = (right ^ mix32(left ^ (key.rounds[r] as number))) >>> 0;
    right = left;
    left = previous;
  }
  return left === 0 ? right : undefined;
}

/**
 * A channel id: "UC" and 22 base64url characters carrying 128 bits (so the
 * last is one of "AQgw"), drawn from the seed and the channel number.
 */
export function channelIdFor(seed: number, channel: number): string {
  const random = createRandom(seed, channel, 0xc4a);
  let out = "UC";
  for (let word = 0; word < 4; word++) {
    const bits = random.uint32();
    // Five characters (30 bits) from each of four draws, then 6 + 2 bits from a fifth: 128 bits in all.
    for (let shift = 26; shift >= 2; shift -= 6) out += ALPHABET[(bits >>> shift) & 63];
  }
  const rest = random.uint32();
  out += ALPHABET[(rest >>> 26) & 63];
  out += ALPHABET[((rest >>> 24) & 3) << 4];
  return out;
}
