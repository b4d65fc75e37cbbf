/** The artifact format's one varint codec (pipeline/artifact/search-index/varint.ts): round trips at the byte boundaries, the bytes LEB128 prescribes, and input cut off inside a varint. */
import { describe, expect, test } from "vitest";
import { MAX_VARINT_BYTES, VarintReader, writeVarint } from "../../pipeline/artifact/search-index/varint.js";

function encode(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * MAX_VARINT_BYTES);
  let at = 0;
  for (const value of values) at = writeVarint(out, at, value);
  return out.subarray(0, at);
}

describe("varints", () => {
  // Each boundary where a varint takes one more byte, and the largest safe integer.
  const boundaries: [number, number][] = [
    [0, 1],
    [1, 1],
    [127, 1],
    [128, 2],
    [16_383, 2],
    [16_384, 3],
    [2 ** 31 - 1, 5],
    [2 ** 31, 5],
    [2 ** 32, 5],
    [2 ** 35 - 1, 5],
    [2 ** 35, 6],
    [Number.MAX_SAFE_INTEGER, MAX_VARINT_BYTES],
  ];

  test.each(boundaries)("%d takes %d bytes and reads back", (value, bytes) => {
    const encoded = encode([value]);
    expect(encoded.length).toBe(bytes);
    const reader = new VarintReader(encoded);
    expect(reader.read()).toBe(value);
    expect(reader.more).toBe(false);
  });

  test("writes the bytes LEB128 prescribes", () => {
    expect([...encode([0, 127, 128, 300, 16_384])]).toEqual([0x00, 0x7f, 0x80, 0x01, 0xac, 0x02, 0x80, 0x80, 0x01]);
  });

  test("a run reads back in order, skips step over one varint, and the reader stops at its end", () => {
    const values = boundaries.map(([value]) => value);
    const encoded = encode(values);
    const reader = new VarintReader(encoded);
    const read: number[] = [];
    while (reader.more) read.push(reader.read());
    expect(read).toEqual(values);

    // VarintReader.skip() passes over one value without decoding it (a reader method, not a skipped test).
    const skipping = new VarintReader(encoded);
    skipping.skip();
    skipping.skip();
    skipping.skip();
    expect(skipping.read()).toBe(128);

    // A reader over a range reads only that range.
    const middle = new VarintReader(encoded, 2, 5);
    expect(middle.read()).toBe(127);
    expect(middle.read()).toBe(128);
    expect(middle.more).toBe(false);
  });

  test("input cut off inside a varint is a RangeError, not a wrong value", () => {
    const encoded = encode([300, Number.MAX_SAFE_INTEGER]);
    expect(() => new VarintReader(encoded.subarray(0, 1)).read()).toThrow(RangeError);
    expect(() => new VarintReader(encoded, 0, 1).read()).toThrow(/cut off at byte 1/);
    expect(() => new VarintReader(encoded, 0, encoded.length - 1).skip()).not.toThrow();
    const cut = new VarintReader(encoded, 0, encoded.length - 1);
    expect(cut.read()).toBe(300);
    expect(() => cut.read()).toThrow(RangeError);
    expect(() => cut.skip()).toThrow(RangeError);
    expect(() => new VarintReader(new Uint8Array(0)).read()).toThrow(RangeError);
  });
});
