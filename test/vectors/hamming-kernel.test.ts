/**
 * The WebAssembly Hamming kernel (pipeline/vectors/wasm): its bytes are the
 * assembly of its text, and its distances are the bits in which two words
 * differ, counted here one bit at a time, for odd and even widths.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HammingRows } from "../../pipeline/vectors/wasm/hamming.js";
import { REPO_ROOT } from "../../scripts/bench/paths.js";
import { assembleKernel, KERNELS, kernelModule } from "../../scripts/wasm-kernels.js";

function bitsApart(a: Uint32Array, b: Uint32Array, from: number): number {
  let d = 0;
  for (let w = 0; w < a.length; w++) for (let bit = 0; bit < 32; bit++) d += ((a[w]! >>> bit) & 1) ^ ((b[from + w]! >>> bit) & 1);
  return d;
}

describe("the Hamming kernel", () => {
  it("is committed as the assembly of its text (npm run wasm)", async () => {
    for (const kernel of KERNELS) {
      const text = readFileSync(join(REPO_ROOT, kernel.wat), "utf8");
      expect(readFileSync(join(REPO_ROOT, kernel.module), "utf8")).toBe(kernelModule(kernel, await assembleKernel(text, kernel.wat)));
    }
  });

  for (const words of [1, 3, 16]) {
    it(`counts the bits in which the query and each row differ (${words} words a row)`, () => {
      let seed = 12345 + words;
      const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
      const count = 700;
      const rows = Uint32Array.from({ length: count * words }, next);
      // Rows equal to the first query and its complement: distance 0 and all bits.
      const query = Uint32Array.from({ length: words }, next);
      rows.set(query, 5 * words);
      rows.set(query.map((w) => ~w >>> 0), 6 * words);
      const kernel = new HammingRows(rows, words);
      for (let round = 0; round < 2; round++) {
        const distances = kernel.distances(query);
        expect(distances.length).toBe(count);
        if (round === 0) expect([distances[5], distances[6]]).toEqual([0, words * 32]);
        for (let r = 0; r < count; r++) expect(distances[r]).toBe(bitsApart(query, rows, r * words));
        query.set(Uint32Array.from({ length: words }, next));
      }
    });
  }
});
