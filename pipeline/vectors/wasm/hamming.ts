/**
 * Hamming distances of one bit vector to a fixed set of rows, by the
 * WebAssembly kernel of hamming.wat: the rows are copied into its memory
 * once, then each call copies the query in and reads the distances out.
 */
import { WASM_BASE64 } from "./hamming-wasm.js";

/** What this module uses of the WebAssembly API (the project's TypeScript libraries do not declare it). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: { memory: { buffer: ArrayBuffer; grow(pages: number): number }; distances: Distances } };
}

const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const kernel = new wasm.Module(Buffer.from(WASM_BASE64, "base64"));
const PAGE = 65536;

type Distances = (query: number, rows: number, count: number, words: number, out: number) => void;

export class HammingRows {
  readonly count: number;
  readonly #words: number;
  readonly #distances: Distances;
  readonly #queryAt: number;
  readonly #outAt: number;
  readonly #query: Uint32Array;
  readonly #out: Int32Array;

  /** `rows`: `words` 32-bit words a row. */
  constructor(rows: Uint32Array, words: number) {
    const instance = new wasm.Instance(kernel);
    const memory = instance.exports.memory;
    this.count = rows.length / words;
    this.#words = words;
    this.#distances = instance.exports.distances;
    // Rows at 0, then the query, then the distances, each at a multiple of 8 bytes.
    const align = (n: number) => Math.ceil(n / 8) * 8;
    this.#queryAt = align(rows.byteLength);
    this.#outAt = this.#queryAt + align(words * 4);
    const needed = this.#outAt + this.count * 4;
    if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    new Uint32Array(memory.buffer, 0, rows.length).set(rows);
    this.#query = new Uint32Array(memory.buffer, this.#queryAt, words);
    this.#out = new Int32Array(memory.buffer, this.#outAt, this.count);
  }

  /** The distance of `bits` to each row, in row order: a view the next call overwrites. */
  distances(bits: Uint32Array): Int32Array {
    this.#query.set(bits.subarray(0, this.#words));
    this.#distances(this.#queryAt, 0, this.count, this.#words, this.#outAt);
    return this.#out;
  }
}
