/**
 * The lists of a set's vector index (write-lists.ts): spherical k-means
 * (centroids by cosine) in two levels, so that training costs √lists
 * comparisons a sample vector rather than one per list: `tops` centroids are
 * trained on a sample, then each top's sample members are split into up to
 * `leaves` centroids of their own; the leaves are the lists. A chunk is
 * placed in the list of its nearest leaf among all of them: the leaves
 * nearest by the Hamming distance of sign bits (cheap), then the nearest of
 * those by cosine. Deterministic: the same sample gives the same centroids.
 */
import { dotRow, unitVector } from "../artifact/vectors/index.js";

/** The row of `rows` (rows `from`..`to`-1) nearest `x` by dot product. */
function nearestRow(x: Float32Array, rows: Float32Array, from: number, to: number): number {
  let best = from;
  let bestScore = -Infinity;
  for (let r = from; r < to; r++) {
    const score = dotRow(x, rows, r);
    if (score > bestScore) {
      bestScore = score;
      best = r;
    }
  }
  return best;
}

/** `k` unit centroids of the unit vectors `members` (indexes into `sample`), seeded with evenly spaced members. */
export function trainCentroids(sample: Float32Array, dims: number, members: Int32Array, k: number, iterations: number): Float32Array {
  const count = Math.min(k, members.length);
  const centroids = new Float32Array(count * dims);
  for (let c = 0; c < count; c++) {
    const m = members[Math.floor((c * members.length) / count)]!;
    centroids.set(sample.subarray(m * dims, (m + 1) * dims), c * dims);
  }
  const sums = new Float64Array(count * dims);
  const sizes = new Int32Array(count);
  const x = new Float32Array(dims);
  for (let iteration = 0; iteration < iterations; iteration++) {
    sums.fill(0);
    sizes.fill(0);
    for (const m of members) {
      x.set(sample.subarray(m * dims, (m + 1) * dims));
      const c = nearestRow(x, centroids, 0, count);
      sizes[c]!++;
      for (let d = 0; d < dims; d++) sums[c * dims + d]! += x[d]!;
    }
    // An empty cluster keeps its centroid; the others move to their members' mean direction.
    for (let c = 0; c < count; c++) if (sizes[c]! > 0) unitVector(sums.subarray(c * dims, (c + 1) * dims), centroids.subarray(c * dims, (c + 1) * dims));
  }
  return centroids;
}

export interface ListCentroids {
  dims: number;
  /** The lists' unit centroids, a row each. */
  leaves: Float32Array;
  /** Each leaf's sign bits, 32 to a word (dims/32 words a leaf, rounded up). */
  leafBits: Uint32Array;
}

/** Two-level centroids of the unit vectors `sample` (rows of `dims`): up to `tops` × `leaves` lists. */
export function trainLists(sample: Float32Array, dims: number, tops: number, leaves: number, iterations = 8): ListCentroids {
  const rows = sample.length / dims;
  const all = Int32Array.from({ length: rows }, (_, i) => i);
  const topCentroids = trainCentroids(sample, dims, all, tops, iterations);
  const topCount = topCentroids.length / dims;
  const byTop: number[][] = Array.from({ length: topCount }, () => []);
  const x = new Float32Array(dims);
  for (let i = 0; i < rows; i++) {
    x.set(sample.subarray(i * dims, (i + 1) * dims));
    byTop[nearestRow(x, topCentroids, 0, topCount)]!.push(i);
  }
  const parts: Float32Array[] = [];
  const leafFrom = new Int32Array(topCount + 1);
  for (let t = 0; t < topCount; t++) {
    // A top no sample member chose is its own single list.
    const part = byTop[t]!.length === 0 ? topCentroids.slice(t * dims, (t + 1) * dims) : trainCentroids(sample, dims, Int32Array.from(byTop[t]!), leaves, iterations);
    parts.push(part);
    leafFrom[t + 1] = leafFrom[t]! + part.length / dims;
  }
  const leafCentroids = new Float32Array(leafFrom[topCount]! * dims);
  parts.forEach((part, t) => leafCentroids.set(part, leafFrom[t]! * dims));
  const words = Math.ceil(dims / 32);
  const leafBits = new Uint32Array(leafFrom[topCount]! * words);
  for (let l = 0; l < leafFrom[topCount]!; l++) signWords(leafCentroids.subarray(l * dims, (l + 1) * dims), leafBits, l * words);
  return { dims, leaves: leafCentroids, leafBits };
}

/** The sign bits of `x` into `out` from word `at` (bit b of word w: x[32w + b] > 0). */
function signWords(x: Float32Array, out: Uint32Array, at: number): void {
  for (let w = 0; w * 32 < x.length; w++) {
    let word = 0;
    for (let b = 0; b < 32 && w * 32 + b < x.length; b++) if (x[w * 32 + b]! > 0) word |= 1 << b;
    out[at + w] = word >>> 0;
  }
}

/** Set bits of a 32-bit word. */
function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** listOf's working arrays, kept between calls (one thread, one set of lists at a time). */
let scratch: { bits: Uint32Array; distance: Int32Array; counts: Int32Array } | undefined;

/** Leaves compared by cosine for a placement: those nearest by sign bits, at least this many. */
export const SHORTLIST = 64;

/** The list of the unit vector `x`: of the SHORTLIST (or more, on ties) leaves nearest by Hamming distance, the nearest by cosine. */
export function listOf(centroids: ListCentroids, x: Float32Array): number {
  const words = Math.ceil(centroids.dims / 32);
  const leaves = centroids.leafBits.length / words;
  if (scratch?.distance.length !== leaves || scratch.bits.length !== words) scratch = { bits: new Uint32Array(words), distance: new Int32Array(leaves), counts: new Int32Array(words * 32 + 1) };
  const { bits, distance, counts } = scratch;
  counts.fill(0);
  signWords(x, bits, 0);
  for (let l = 0; l < leaves; l++) {
    let d = 0;
    for (let w = 0, o = l * words; w < words; w++, o++) d += popcount(bits[w]! ^ centroids.leafBits[o]!);
    distance[l] = d;
    counts[d]!++;
  }
  // The largest distance that keeps at least SHORTLIST leaves.
  let cut = 0;
  for (let kept = counts[0]!; kept < SHORTLIST && cut < words * 32; kept += counts[++cut]!);
  let leaf = 0;
  let best = -Infinity;
  for (let l = 0; l < leaves; l++) {
    if (distance[l]! > cut) continue;
    const score = dotRow(x, centroids.leaves, l);
    if (score > best) {
      best = score;
      leaf = l;
    }
  }
  return leaf;
}
