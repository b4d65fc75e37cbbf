import { describe, expect, it } from "vitest";
import { decodeSegments, encodeSegments, formatSeconds } from "../../pipeline/artifact/segments/segments.js";

describe("segment timings", () => {
  it("formats milliseconds as the shortest decimal seconds", () => {
    const cases: [number, string][] = [
      [0, "0"], [5, "0.005"], [50, "0.05"], [500, "0.5"], [1000, "1"], [1540, "1.54"], [1504, "1.504"],
      [1050, "1.05"], [12345, "12.345"], [3600000, "3600"], [86399999, "86399.999"],
    ];
    for (const [ms, text] of cases) expect(formatSeconds(ms)).toBe(text);
    for (let ms = 0; ms < 5000; ms++) expect(formatSeconds(ms)).toBe(String(ms / 1000));
  });

  it("round-trips segments through the stored script and timings", () => {
    const segments = [
      { start: 0, duration: 1.5, text: "first line" },
      { start: 1.54, duration: 0, text: "second, with ünïcode" },
      { start: 3.005, duration: 2.25, text: "third" },
    ];
    const stored = encodeSegments(segments);
    expect(stored.script).toBe("first line second, with ünïcode third");
    expect(decodeSegments(stored.script, stored.timings)).toEqual([
      { text: "first line", offset: "0", duration: "1.5" },
      { text: "second, with ünïcode", offset: "1.54", duration: "0" },
      { text: "third", offset: "3.005", duration: "2.25" },
    ]);
  });
});
