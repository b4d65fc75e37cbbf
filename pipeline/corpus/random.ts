/**
 * Seeded randomness for the synthetic corpus.
 *
 * Every video draws from its own generator, seeded from (corpus seed, video
 * index, stream), so any record can be regenerated on its own and in any
 * order. sfc32 is used because it is fast in JS (32-bit integer ops only),
 * passes PractRand far beyond what we need, and has a 128-bit state that is
 * cheap to set up per record.
 */

/** A seeded stream of pseudo-random numbers. */
export interface Random {
  /** Next unsigned 32-bit integer. */
  uint32(): number;
  /** Uniform in [0, 1). */
  float(): number;
  /** Uniform integer in [0, n); n must be a positive integer below 2^32. */
  int(n: number): number;
  /** Uniform integer in [min, max], both inclusive. */
  range(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** Standard normal deviate (Box-Muller, one value per call). */
  normal(): number;
}

const TWO_POW_32 = 4294967296;

/** murmur3's 32-bit finalizer: a cheap bijective avalanche used to derive seeds. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Hashes a list of non-negative safe integers into 32 bits (order matters). */
export function hashInts(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) {
    // Fold both halves so seeds above 2^32 still count.
    const lo = value >>> 0;
    const hi = Math.floor(value / TWO_POW_32) >>> 0;
    h = mix32(h ^ lo) + 0x7f4a7c15;
    h = mix32(h ^ hi ^ 0x632be5ab);
  }
  return h >>> 0;
}

/** sfc32 seeded from a list of integers, e.g. `createRandom(seed, videoIndex, STREAM)`. */
export function createRandom(...key: number[]): Random {
  return new Sfc32(hashInts(...key));
}

// The state lives in an Int32Array: as plain fields, int32 values beyond V8's
// 31-bit small integers would be boxed on every update (measured ~8x slower).
class Sfc32 implements Random {
  private readonly s = new Int32Array(4);

  constructor(base: number) {
    const s = this.s;
    s[0] = mix32(base ^ 0xa0761d65);
    s[1] = mix32(base ^ 0xe7037ed1);
    s[2] = mix32(base ^ 0x8ebc6af0);
    s[3] = 1;
    // The author of sfc32 recommends discarding the first outputs so nearby seeds decorrelate.
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const s = this.s;
    const a = s[0] as number;
    const b = s[1] as number;
    const c = s[2] as number;
    const d = s[3] as number;
    const t = (((a + b) | 0) + d) | 0;
    s[3] = d + 1;
    s[0] = b ^ (b >>> 9);
    s[1] = c + (c << 3);
    s[2] = ((c << 21) | (c >>> 11)) + t;
    return t >>> 0;
  }

  float(): number {
    return this.uint32() / TWO_POW_32;
  }

  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  range(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  normal(): number {
    // 1 - u keeps the logarithm away from zero.
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
