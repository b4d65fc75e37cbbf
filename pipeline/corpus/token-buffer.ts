/**
 * A growable array of word ids. Generation writes into one reused buffer per
 * corpus instead of allocating an array per sentence, which keeps the hot
 * loop free of garbage.
 */
export class TokenBuffer {
  ids: Int32Array;
  length = 0;

  constructor(capacity = 4096) {
    this.ids = new Int32Array(capacity);
  }

  /** Makes room for `extra` more ids without moving `length`. */
  reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.ids.length) return;
    let capacity = this.ids.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Int32Array(capacity);
    grown.set(this.ids.subarray(0, this.length));
    this.ids = grown;
  }

  push(id: number): void {
    this.reserve(1);
    this.ids[this.length++] = id;
  }

  clear(): void {
    this.length = 0;
  }
}
