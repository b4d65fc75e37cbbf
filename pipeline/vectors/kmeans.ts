/**
 * The lists of a set's vector index (write-lists.ts): spherical k-means
 * (centroids by cosine) on a sample, each centroid a list. Assigning a vector
 * to its nearest centroid, in training and when the build places each chunk,
 * compares it with every centroid by the Hamming distance of sign bits
 * (cheap), then with the nearest of those by cosine: nearly always the
 * nearest of all, at a fraction of the cost. Deterministic: the same sample
 * gives the same centroids.
 */
import { dotRow, unitVector } from "../artifact/vectors/index.js";
import { HammingRows } from "./wasm/hamming.js";

export interface ListCentroids {
  dims: number;
  /** The lists' unit centroids, a row each. */
  leaves: Float32Array;
  /** Each centroid's sign bits, 32 to a word (dims/32 words a centroid, rounded up). */
  leafBits: Uint32Array;
}

/** The centroids `leaves` (unit rows of `dims`) with their sign bits. */
export function withBits(leaves: Float32Array, dims: number): ListCentroids {
  const words = Math.ceil(dims / 32);
  const count = leaves.length / dims;
  const leafBits = new Uint32Array(count * words);
  for (let l = 0; l < count; l++) signWords(leaves.subarray(l * dims, (l + 1) * dims), leafBits, l * words);
  return { dims, leaves, leafBits };
}

/** Training passes over the sample. */
export const ITERATIONS = 8;

/** Up to `lists` unit centroids of the unit vectors `sample` (rows of `dims`), seeded with evenly spaced rows. */
export function trainLists(sample: Float32Array, dims: number, lists: number, iterations = ITERATIONS): ListCentroids {
  const rows = sample.length / dims;
  const count = Math.min(lists, rows);
  const leaves = new Float32Array(count * dims);
  for (let c = 0; c < count; c++) {
    const m = Math.floor((c * rows) / count);
    leaves.set(sample.subarray(m * dims, (m + 1) * dims), c * dims);
  }
  const sums = new Float64Array(count * dims);
  const sizes = new Int32Array(count);
  const fit = new Float32Array(rows);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const centroids = withBits(leaves, dims);
    sums.fill(0);
    sizes.fill(0);
    for (let m = 0; m < rows; m++) {
      const x = sample.subarray(m * dims, (m + 1) * dims);
      const c = listOf(centroids, x);
      fit[m] = dotRow(x, leaves, c);
      sizes[c]!++;
      for (let d = 0; d < dims; d++) sums[c * dims + d]! += x[d]!;
    }
    // An empty list keeps its centroid; the others move to their members' mean direction.
    for (let c = 0; c < count; c++) if (sizes[c]! > 0) unitVector(sums.subarray(c * dims, (c + 1) * dims), leaves.subarray(c * dims, (c + 1) * dims));
    if (iteration < iterations - RESEED_SETTLE) reseed(sample, dims, leaves, sizes, fit);
  }
  return withBits(leaves, dims);
}

/** Passes at the end of training without reseeding, for the centroids to settle. */
const RESEED_SETTLE = 2;
/** A row fits poorly below this share of the median row's cosine to its centroid. */
const POOR_FIT = 0.65;
/** Two poorly fitting rows at a cosine above this are of one group and get one new centroid. */
const SAME_GROUP = 0.5;
/** At most this share of the lists are moved in one pass. */
const RESEED_SHARE = 0.05;

/**
 * Moves the lists with the fewest members onto rows that fit no centroid well, one per group of such rows.
 * Lloyd's passes cannot move a centroid across to a group of rows far from every centroid: seeded with two
 * centroids in one topic and none in another, the other topic's rows stay split among the lists of their
 * second topics, where a query of their first does not look. A list's members go to their next nearest.
 */
function reseed(sample: Float32Array, dims: number, leaves: Float32Array, sizes: Int32Array, fit: Float32Array): void {
  const rows = fit.length;
  const count = sizes.length;
  const median = [...fit].sort((a, b) => a - b)[rows >> 1]!;
  const poor = Array.from({ length: rows }, (_, m) => m)
    .filter((m) => fit[m]! < POOR_FIT * median)
    .sort((a, b) => fit[a]! - fit[b]! || a - b);
  const most = Math.max(1, Math.floor(count * RESEED_SHARE));
  const seeds: number[] = [];
  for (const m of poor) {
    if (seeds.length >= most) break;
    const x = sample.subarray(m * dims, (m + 1) * dims);
    if (seeds.every((seed) => dotRow(x, sample, seed) < SAME_GROUP)) seeds.push(m);
  }
  if (seeds.length === 0) return;
  const smallest = Array.from({ length: count }, (_, c) => c)
    .sort((a, b) => sizes[a]! - sizes[b]! || a - b)
    .slice(0, seeds.length);
  smallest.forEach((c, i) => leaves.set(sample.subarray(seeds[i]! * dims, (seeds[i]! + 1) * dims), c * dims));
}

/** The sign bits of `x` into `out` from word `at` (bit b of word w: x[32w + b] > 0). */
function signWords(x: Float32Array, out: Uint32Array, at: number): void {
  for (let w = 0; w * 32 < x.length; w++) {
    let word = 0;
    for (let b = 0; b < 32 && w * 32 + b < x.length; b++) if (x[w * 32 + b]! > 0) word |= 1 << b;
    out[at + w] = word >>> 0;
  }
}

/** listOf's working arrays, kept between calls (one thread, one set of lists at a time). */
let scratch: { bits: Uint32Array; counts: Int32Array } | undefined;
/** Each set of centroids' sign bits in a Hamming kernel of its own, made at its first use on this thread. */
const kernels = new WeakMap<ListCentroids, HammingRows>();

/** Leaves compared by cosine for a placement: those nearest by sign bits, at least this many. */
export const SHORTLIST = 64;

/** The list of the unit vector `x`: of the SHORTLIST (or more, on ties) leaves nearest by Hamming distance, the nearest by cosine. */
export function listOf(centroids: ListCentroids, x: Float32Array): number {
  const words = Math.ceil(centroids.dims / 32);
  let kernel = kernels.get(centroids);
  if (kernel === undefined) {
    kernel = new HammingRows(centroids.leafBits, words);
    kernels.set(centroids, kernel);
  }
  if (scratch?.bits.length !== words) scratch = { bits: new Uint32Array(words), counts: new Int32Array(words * 32 + 1) };
  const { bits, counts } = scratch;
  signWords(x, bits, 0);
  const distance = kernel.distances(bits);
  const leaves = kernel.count;
  counts.fill(0);
  for (let l = 0; l < leaves; l++) counts[distance[l]!]!++;
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
