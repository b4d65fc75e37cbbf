/** The request target's path and query: the plain fast path agrees with WHATWG URL parsing. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitTarget } from "../../server/app/app.js";

/** What WHATWG URL parsing makes of a target; one it rejects (e.g. `//`) counts as `/`. */
function viaUrl(target: string): { path: string; query: [string, string][] } {
  let url: URL;
  try {
    url = new URL(target, "http://localhost");
  } catch {
    return { path: "/", query: [] };
  }
  return { path: url.pathname, query: [...url.searchParams] };
}

const segment = fc.stringMatching(/^[A-Za-z0-9_.%\\-]{0,12}$/);
const queryText = fc.string({ unit: fc.constantFrom(..."ab=&+%20é\"<> #?/.".split("")), maxLength: 24 });

describe("splitTarget", () => {
  it("gives the path and query that URL parsing gives, for plain and unusual targets alike", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.option(queryText), (segments, query) => {
        const target = `/${segments.join("/")}${query === null ? "" : `?${query}`}`;
        const split = splitTarget(target);
        expect({ path: split.path, query: [...split.query] }).toEqual(viaUrl(target));
      }),
      { numRuns: 2000 },
    );
  });

  it("normalises dot segments and escapes through URL parsing", () => {
    expect(splitTarget("/v1/../v1/stats?x=1").path).toBe("/v1/stats");
    expect(splitTarget("/v1/transcript/%41bc").path).toBe("/v1/transcript/%41bc");
    expect(splitTarget("/v1/search?q=a+b&q=c").query.getAll("q")).toEqual(["a b", "c"]);
    expect(splitTarget(undefined).path).toBe("/");
    // A leading // is a host to URL parsing: never taken as a plain path.
    expect(splitTarget("//example.com/v1/stats").path).toBe(viaUrl("//example.com/v1/stats").path);
  });

  it("splits a long run of letters followed by a character the plain form refuses (once took exponential time)", () => {
    for (const target of [`/v1/transcript/${"a".repeat(100_000)} `, `/${"a".repeat(40)}%`, `/v1/${"ab-".repeat(20_000)}#x`]) {
      const split = splitTarget(target);
      expect({ path: split.path, query: [...split.query] }).toEqual(viaUrl(target));
    }
  }, 10_000);
});
