/**
 * Which channel each video belongs to, without a table.
 *
 * Channel sizes follow Zipf's law (a few big channels, a long tail of small
 * ones, each with at least one video). Videos are dealt to channels through
 * an affine permutation of the indexes, π(i) = (a·i + b) mod n with a coprime
 * to n: channel c owns the π-positions [start(c), start(c+1)). Both
 * directions are O(1) or O(log channels), so `videoAt(i)` finds its channel
 * and a channel lists its videos without materializing a mapping, and
 * neighbouring indexes land in different channels (so a `--from/--to` slice
 * of the corpus spans many channels).
 */
import { hashInts } from "./random.js";

/** Products a·i stay below 2^53 for n up to this, so the permutation is exact in doubles. */
export const MAX_LAYOUT_VIDEOS = 50_000_000;
/** Exponent of the size distribution: size of the k-th biggest channel ∝ 1/k^s. */
const ZIPF_EXPONENT = 1;

export interface ChannelLayout {
  readonly videos: number;
  /** Number of videos of each channel, biggest first. */
  readonly sizes: readonly number[];
  channelOf(index: number): number;
  /** Position of the video within its channel, 0-based. */
  rankOf(index: number): number;
  /** The video index at `rank` within `channel`. */
  indexAt(channel: number, rank: number): number;
}

export function layoutChannels(videos: number, channels: number, seed: number): ChannelLayout {
  if (!Number.isInteger(videos) || videos < 1 || videos > MAX_LAYOUT_VIDEOS) {
    throw new Error(`Expected the "videos" option to be an integer from 1 to ${MAX_LAYOUT_VIDEOS}, got ${videos}`);
  }
  if (!Number.isInteger(channels) || channels < 1 || channels > videos) {
    throw new Error(`Expected the "channels" option to be an integer from 1 to the number of videos (${videos}), got ${channels}`);
  }
  const sizes = zipfSizes(videos, channels);
  const starts = new Float64Array(channels + 1);
  for (let c = 0; c < channels; c++) starts[c + 1] = (starts[c] as number) + (sizes[c] as number);

  // A multiplier near n/φ² spreads consecutive indexes far apart; the seed nudges it so layouts differ per seed.
  let a = videos === 1 ? 1 : Math.max(1, Math.floor(videos * 0.381966) + (hashInts(seed, 1) % Math.max(1, Math.floor(videos / 100))));
  while (gcd(a, videos) !== 1) a++;
  a %= videos;
  if (videos > 1 && a === 0) a = 1;
  const b = hashInts(seed, 2) % videos;
  const aInverse = modularInverse(a, videos);

  const position = (index: number): number => (a * index + b) % videos;
  const channelOfPosition = (p: number): number => {
    // Last channel whose start is ≤ p.
    let lo = 0;
    let hi = channels - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((starts[mid] as number) <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };

  return {
    videos,
    sizes,
    channelOf: (index) => channelOfPosition(position(index)),
    rankOf: (index) => {
      const p = position(index);
      return p - (starts[channelOfPosition(p)] as number);
    },
    indexAt: (channel, rank) => {
      const p = (starts[channel] as number) + rank;
      return (aInverse * ((p - b + videos) % videos)) % videos;
    },
  };
}

/** Zipf weights scaled to `videos` by largest remainder, after giving every channel its one video. */
function zipfSizes(videos: number, channels: number): number[] {
  const weights: number[] = [];
  let total = 0;
  for (let k = 1; k <= channels; k++) {
    const w = 1 / Math.pow(k, ZIPF_EXPONENT);
    weights.push(w);
    total += w;
  }
  const spare = videos - channels;
  const sizes = weights.map((w) => 1 + Math.floor((spare * w) / total));
  let left = videos - sizes.reduce((sum, s) => sum + s, 0);
  // Remainders fall with k for Zipf weights only roughly, so hand out the leftovers by largest remainder.
  const order = weights
    .map((w, k) => ({ k, remainder: (spare * w) / total - Math.floor((spare * w) / total) }))
    .sort((x, y) => y.remainder - x.remainder || x.k - y.k);
  for (const { k } of order) {
    if (left === 0) break;
    sizes[k] = (sizes[k] as number) + 1;
    left--;
  }
  return sizes;
}

function gcd(x: number, y: number): number {
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

function modularInverse(a: number, n: number): number {
  if (n === 1) return 0;
  // Extended Euclid; values stay below n, so doubles are exact.
  let [oldR, r] = [a, n];
  let [oldS, s] = [1, 0];
  while (r !== 0) {
    const q = Math.floor(oldR / r);
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % n) + n) % n;
}
