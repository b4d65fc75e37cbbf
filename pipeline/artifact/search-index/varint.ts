/**
 * Unsigned LEB128 varints, the one codec of the artifact format's packed
 * integers: seven bits a byte, low bits first, the high bit set on every byte
 * but the last. The term counts' pairs (term-counts.ts), the server's held
 * copy of them (server/search/memory/stored-term-counts.ts) and the compact
 * segment timings (server/search/snippet/segment-index.ts) are written and
 * read with it. Values are integers from 0 to 2^53 − 1 (8 bytes at most).
 */

/** The most bytes one varint takes. */
export const MAX_VARINT_BYTES = 8;

/** Writes `value` at `out[at]` and returns the position after it; `out` must have room (MAX_VARINT_BYTES is always enough). */
export function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value % 0x80) | 0x80;
    value = Math.floor(value / 0x80);
  }
  out[at++] = value;
  return at;
}

/** Reads the varints of `bytes[at, end)` one after another; a varint cut off by `end` is a RangeError. */
export class VarintReader {
  at: number;
  readonly #bytes: Uint8Array;
  readonly #end: number;

  constructor(bytes: Uint8Array, at = 0, end = bytes.length) {
    this.#bytes = bytes;
    this.at = at;
    this.#end = Math.min(end, bytes.length);
  }

  /** Whether a varint is left before the end. */
  get more(): boolean {
    return this.at < this.#end;
  }

  /** The next varint. */
  read(): number {
    const bytes = this.#bytes;
    let at = this.at;
    if (at >= this.#end) throw truncated(at);
    let byte = bytes[at++]!;
    if (byte < 0x80) {
      this.at = at;
      return byte;
    }
    let value = byte & 0x7f;
    let scale = 0x80;
    do {
      if (at >= this.#end) throw truncated(at);
      byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80);
    this.at = at;
    return value;
  }

  /** Steps over the next varint without decoding it. */
  skip(): void {
    let at = this.at;
    let byte: number;
    do {
      if (at >= this.#end) throw truncated(at);
      byte = this.#bytes[at++]!;
    } while (byte >= 0x80);
    this.at = at;
  }
}

function truncated(at: number): RangeError {
  return new RangeError(`A varint is cut off at byte ${at}.`);
}
