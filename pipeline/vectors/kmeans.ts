/**
 * The lists of a set's vector index (write-lists.ts): spherical k-means
 * (centroids by cosine) in two levels, so that placing each of millions of
 * chunks costs √lists comparisons rather than one per list. `tops` centroids
 * are trained on a sample, then each top's sample members are split into up
 * to `leaves` centroids of their own; the leaves are the lists. Deterministic:
 * the same sample gives the same centroids.
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
  /** The first level: `tops` unit centroids. */
  tops: Float32Array;
  /** The lists' unit centroids, those of top t at rows leafFrom[t]..leafFrom[t + 1]-1. */
  leaves: Float32Array;
  leafFrom: Int32Array;
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
  return { dims, tops: topCentroids, leaves: leafCentroids, leafFrom };
}

/** Tops whose leaves a vector is compared with: a vector near the border of two tops finds its nearest leaf in either. */
export const TOPS_SEARCHED = 4;

/** The list of the unit vector `x`: the nearest leaf among those of its TOPS_SEARCHED nearest tops. */
export function listOf(centroids: ListCentroids, x: Float32Array, searched = TOPS_SEARCHED): number {
  const topCount = centroids.tops.length / centroids.dims;
  // The nearest tops, best first (an insertion into a short sorted list).
  const best: { top: number; score: number }[] = [];
  for (let t = 0; t < topCount; t++) {
    const score = dotRow(x, centroids.tops, t);
    if (best.length === searched && score <= best[searched - 1]!.score) continue;
    const at = best.findIndex((entry) => entry.score < score);
    best.splice(at === -1 ? best.length : at, 0, { top: t, score });
    if (best.length > searched) best.pop();
  }
  let leaf = 0;
  let leafScore = -Infinity;
  for (const { top } of best) {
    for (let l = centroids.leafFrom[top]!; l < centroids.leafFrom[top + 1]!; l++) {
      const score = dotRow(x, centroids.leaves, l);
      if (score > leafScore) {
        leafScore = score;
        leaf = l;
      }
    }
  }
  return leaf;
}
