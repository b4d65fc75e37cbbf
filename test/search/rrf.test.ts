import { describe, expect, it } from "vitest";
import { reciprocalRankFusion, RRF_K } from "../../server/search/semantic/rrf.js";

describe("reciprocal rank fusion", () => {
  it("orders a hand-made example by the sum of 1/(60 + rank) over the lists", () => {
    // keyword: a b c d; semantic: c a e. a: 1/61 + 1/62; c: 1/63 + 1/61; b: 1/62; e: 1/63; d: 1/64.
    const fused = reciprocalRankFusion([
      ["a", "b", "c", "d"],
      ["c", "a", "e"],
    ]);
    expect(fused.map((f) => f.item)).toEqual(["a", "c", "b", "e", "d"]);
    expect(fused[0]!.score).toBeCloseTo(1 / (RRF_K + 1) + 1 / (RRF_K + 2), 12);
    expect(fused.at(-1)!.score).toBeCloseTo(1 / (RRF_K + 4), 12);
  });

  it("puts an item second in both lists above one first in a single list", () => {
    const fused = reciprocalRankFusion([
      ["x", "both"],
      ["y", "both"],
    ]);
    expect(fused[0]!.item).toBe("both");
  });

  it("breaks a tie of scores by the earlier list", () => {
    // t and r are each first in one list (1/61): t's list comes first; s is second (1/62).
    expect(reciprocalRankFusion([["t", "s"], ["r"]]).map((f) => f.item)).toEqual(["t", "r", "s"]);
  });

  it("gives one list back in its own order", () => {
    expect(reciprocalRankFusion([["p", "q", "r"]]).map((f) => f.item)).toEqual(["p", "q", "r"]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });
});
