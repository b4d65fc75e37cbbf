import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { importTitleIndex } from "../../pipeline/artifact/search-index/title-index.js";
import { tokenize } from "../../pipeline/artifact/text/text.js";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import type { SearchOptions } from "../../server/search/search.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";
import { CHANNEL_A, CHANNEL_B, makeVideo, sampleRecords, videoId } from "../helpers/records.js";

const page = (q: string, extra: Partial<{ limit: number; offset: number; channel: string; minViews: number }> = {}) => ({
  q,
  limit: 20,
  offset: 0,
  ...extra,
});

describe("search over the sample set", () => {
  let set: TempArtifacts;
  let catalog: ArtifactCatalog;
  beforeAll(async () => {
    set = await buildTempArtifacts(sampleRecords());
    catalog = openCatalog({ dir: set.dir });
  });
  afterAll(() => {
    catalog.close();
    set.cleanup();
  });

  it("finds every transcript containing all the words, each with a snippet from its own text", () => {
    const { results, total, totalExact, hasMore } = catalog.search(page("river"));
    expect(results.map((r) => r.videoId).sort()).toEqual([videoId(1), videoId(3), videoId(4)].sort());
    expect({ total, totalExact, hasMore }).toEqual({ total: 3, totalExact: true, hasMore: false });
    const byId = new Map(results.map((r) => [r.videoId, r.snippet]));
    expect(byId.get(videoId(1))).toContain("the <mark>river</mark> flows past the old mill");
    expect(byId.get(videoId(3))).toContain("live beside a <mark>river</mark>");
  });

  it("escapes markup in transcripts before marking matches", () => {
    const hit = catalog.search(page("markup")).results[0]!;
    expect(hit.videoId).toBe(videoId(4));
    expect(hit.snippet).toBe("beware &lt;script&gt;alert(1)&lt;/script&gt; &amp; other <mark>markup</mark> in a river of captions");
    expect(hit.snippet).not.toContain("<script>");
  });

  it("treats FTS5 and FlexSearch syntax in the query as plain words", () => {
    for (const q of ['river*', "river NEAR(mill)", '"river', "river:", "-river", "river OR plants", "river AND", "(river)", "river^", "{script}: river"]) {
      const result = catalog.search(page(q));
      expect(Array.isArray(result.results)).toBe(true);
    }
    expect(catalog.search(page("river*")).total).toBe(3);
    // "OR" is a word here, not an operator: no transcript contains it.
    expect(catalog.search(page("river OR plants")).total).toBe(0);
    expect(catalog.search(page("***")).total).toBe(0);
  });

  it("matches quoted phrases as phrases", () => {
    expect(catalog.search(page('"old mill"')).results.map((r) => r.videoId)).toEqual([videoId(1)]);
    expect(catalog.search(page('"mill old"')).total).toBe(0);
  });

  it("restricts to a channel and to a minimum view count, inclusive", () => {
    expect(catalog.search(page("energy", { channel: CHANNEL_B })).results.map((r) => r.videoId)).toEqual([videoId(7)]);
    expect(catalog.search(page("river", { channel: CHANNEL_B })).total).toBe(0);
    expect(catalog.search(page("river", { channel: "UCzzzzzzzzzzzzzzzzzzzzzz" })).total).toBe(0);
    const rich = catalog.search(page("river", { minViews: 3000 }));
    expect(rich.results.map((r) => r.videoId).sort()).toEqual([videoId(3), videoId(4)].sort());
    expect(catalog.search(page("river", { minViews: 3001 })).results.map((r) => r.videoId)).toEqual([videoId(4)]);
    expect(catalog.search(page("river", { minViews: 10 ** 12 })).total).toBe(0);
  });

  it("folds case and diacritics like the index", () => {
    expect(catalog.search(page("RIVER")).total).toBe(3);
    expect(catalog.search(page("fliesst")).total).toBe(0);
    expect(catalog.search(page("fließt")).results.map((r) => r.videoId)).toEqual([videoId(6)]);
    expect(catalog.search(page("Energía", { channel: CHANNEL_B })).total).toBe(0); // only primary tracks are searched
  });

  it("decodes non-ASCII text as UTF-8 for the snippet, read from the database or held in memory", async () => {
    const expected = "der fluss <mark>fließt</mark> durch die stadt";
    expect(catalog.search(page("fließt")).results[0]!.snippet).toBe(expected);
    const held = openCatalog({ dir: set.dir, hotTextBytes: 2 ** 20 });
    try {
      const warmth = await held.warm();
      expect(warmth.texts?.transcripts).toBeGreaterThan(0);
      expect(held.search(page("fließt")).results[0]!.snippet).toBe(expected);
      expect(held.search(page("river")).results.map((r) => r.snippet)).toEqual(catalog.search(page("river")).results.map((r) => r.snippet));
    } finally {
      held.close();
    }
  });

  it("returns the search result fields of the spec with their types", () => {
    const hit = catalog.search(page("photosynthesis")).results[0]!;
    expect(hit).toEqual({
      videoId: videoId(2),
      title: "Lecture number 2",
      channelId: CHANNEL_A,
      channelTitle: "Alpha Lectures",
      viewCount: 2000,
      wordCount: 12,
      snippet: "<mark>photosynthesis</mark> turns light into chemical energy inside the leaves of green plants",
      startSeconds: 0,
      url: `https://www.youtube.com/watch?v=${videoId(2)}&t=0s`,
      moments: [],
    });
  });
});

describe("ranking and pagination over many matches", () => {
  let set: TempArtifacts;
  const records = Array.from({ length: 60 }, (_, i) => {
    const n = i + 1;
    // Every transcript says "common"; "target" appears n % 5 times; video 60 has the most views.
    const filler = "lorem ipsum dolor sit amet consectetur ".repeat(3);
    const target = "target ".repeat(n % 5);
    return makeVideo(n, { text: `${filler} common ${target} words number${n}` });
  });
  beforeAll(async () => {
    set = await buildTempArtifacts(records);
  });
  afterAll(() => set.cleanup());

  function engine(options: SearchOptions): { search: ArtifactCatalog; close: () => void } {
    const catalog = openCatalog({ dir: set.dir, search: options });
    return { search: catalog, close: () => catalog.close() };
  }

  it("ranks by relevance inside the candidate set, more views first on ties", () => {
    // "target" is in 80% of this small corpus: count it anyway, to see tf at work.
    const { search, close } = engine({ candidates: 100, countTermMaxShare: 1 });
    const ids = search.search(page("target", { limit: 100 })).results.map((r) => Number(r.videoId.slice(3)));
    // tf 4 first (most-viewed of them first), then tf 3, ...
    const tf = (n: number) => n % 5;
    for (let i = 1; i < ids.length; i++) {
      const [a, b] = [ids[i - 1]!, ids[i]!];
      expect(tf(a) > tf(b) || (tf(a) === tf(b) && a > b)).toBe(true);
    }
    expect(ids).toHaveLength(48);
    close();
  });

  it("scores a term that most transcripts contain as present, not by how often it occurs", () => {
    const { search, close } = engine({ candidates: 100 });
    const ids = search.search(page("target", { limit: 100 })).results.map((r) => Number(r.videoId.slice(3)));
    expect(ids).toHaveLength(48);
    // tf = 1 for all: BM25's length normalisation puts the shortest transcripts (one "target") first, more views first among them.
    expect(ids.slice(0, 12)).toEqual([56, 51, 46, 41, 36, 31, 26, 21, 16, 11, 6, 1]);
    close();
  });

  it("pages through all matches without gaps or repeats, across the candidate boundary", () => {
    const { search, close } = engine({ candidates: 7, exactCountCap: 1000 });
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const result = search.search(page("common", { limit: 4, offset }));
      seen.push(...result.results.map((r) => r.videoId));
      expect(result.total).toBe(60);
      expect(result.hasMore).toBe(offset + 4 < 60);
      if (!result.hasMore) break;
      offset += 4;
    }
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
    // Past the candidate set, matches follow in popularity order.
    const tail = seen.slice(7).map((id) => Number(id.slice(3)));
    expect(tail).toEqual([...tail].sort((a, b) => b - a));
    close();
  });

  it("estimates the total above the exact-count cap, never below what the page shows, and keeps hasMore exact", () => {
    const { search, close } = engine({ candidates: 5, exactCountCap: 10 });
    const first = search.search(page("common", { limit: 5 }));
    expect(first.totalExact).toBe(false);
    expect(first.total).toBeGreaterThan(10);
    const last = search.search(page("common", { limit: 5, offset: 55 }));
    expect(last.results).toHaveLength(5);
    expect(last.hasMore).toBe(false);
    expect(last.total).toBeGreaterThanOrEqual(60);
    const beyond = search.search(page("common", { limit: 5, offset: 60 }));
    expect(beyond.results).toEqual([]);
    expect(beyond.hasMore).toBe(false);
    close();
  });

  it("does not boost titles for terms that most transcripts contain", async () => {
    const titled = await buildTempArtifacts([
      makeVideo(1, { title: "All about volcanoes", text: "volcanoes erupt" }),
      makeVideo(2, { title: "Something else", text: "volcanoes erupt" }),
    ]);
    const catalog = openCatalog({ dir: titled.dir });
    expect(catalog.search(page("volcanoes")).results.map((r) => r.videoId)).toEqual([videoId(2), videoId(1)]);
    catalog.close();
    titled.cleanup();
  });

  it("boosts a video whose title matches the query", async () => {
    // Filler keeps "volcanoes" rare: terms in most transcripts are no title signal and are not looked up.
    const filler = Array.from({ length: 20 }, (_, i) => makeVideo(10 + i, { text: "nothing about mountains here" }));
    const titled = await buildTempArtifacts([
      makeVideo(1, { title: "All about volcanoes", text: "volcanoes erupt" }),
      makeVideo(2, { title: "Something else", text: "volcanoes erupt" }),
      ...filler,
    ]);
    const catalog = openCatalog({ dir: titled.dir });
    // Same text, video 2 has more views, but video 1's title matches.
    expect(catalog.search(page("volcanoes")).results.map((r) => r.videoId)).toEqual([videoId(1), videoId(2)]);
    catalog.close();
    titled.cleanup();
  });
});

describe("title and channel-name boosts", () => {
  it("boost a title that holds every word of the query, as a word or the start of one, and not one that holds some", async () => {
    // Filler keeps both words in under 10% of transcripts, so they are looked up in titles.
    const filler = Array.from({ length: 40 }, (_, i) => makeVideo(10 + i, { text: "nothing about mountains here", viewCount: 10 }));
    const titled = await buildTempArtifacts([
      makeVideo(1, { title: "Quiet hills", text: "volcanoes erupt", viewCount: 3000 }),
      makeVideo(2, { title: "Volcanoes of Iceland", text: "volcanoes erupt", viewCount: 2000 }),
      makeVideo(3, { title: "Erupting volcanoes", text: "volcanoes erupt", viewCount: 1000 }),
      ...filler,
    ]);
    const catalog = openCatalog({ dir: titled.dir });
    try {
      // Same text; video 1 has the most views. Only video 3's title holds both words ("erupt" starts "Erupting").
      expect(catalog.search(page("volcanoes erupt")).results.map((r) => r.videoId)).toEqual([videoId(3), videoId(1), videoId(2)]);
    } finally {
      catalog.close();
      titled.cleanup();
    }
  });

  it("come from each word's matches, which intersected are what FlexSearch finds for the words together", async () => {
    const corpus = createSyntheticCorpus({ seed: 11, videos: 300, channels: 6 });
    const records = Array.from({ length: corpus.videoCount }, (_, i) => corpus.videoAt(i));
    const set = await buildTempArtifacts(records);
    try {
      const titles = importTitleIndex(readFileSync(join(set.dir, ARTIFACT_FILES.titleIndex), "utf8"));
      const all = { limit: Number.MAX_SAFE_INTEGER };
      type Fields = { field: string; result: number[] }[];
      const ids = (fields: Fields, field: string) => new Set(fields.find((f) => f.field === field)?.result ?? []);
      let nonEmpty = 0;
      for (const [i, record] of records.entries()) {
        // Two or three words of a title, a short one among them, and a word of a channel name with one of a title.
        const words = tokenize(record.title);
        const queries = [words.slice(0, 2 + (i % 2)), [words[0]!, words[0]!.slice(0, 2)], [tokenize(record.channelTitle)[0]!, words.at(-1)!]];
        for (const terms of queries) {
          const together = titles.search(terms.join(" "), all) as unknown as Fields;
          const each = terms.map((t) => titles.search(t, all) as unknown as Fields);
          for (const field of ["title", "channel"]) {
            const expected = ids(together, field);
            const intersected = [...ids(each[0]!, field)].filter((id) => each.every((e) => ids(e, field).has(id)));
            expect(new Set(intersected), `${terms.join(" ")} in ${field}`).toEqual(expected);
            if (expected.size > 0) nonEmpty++;
          }
        }
      }
      expect(nonEmpty).toBeGreaterThan(records.length);
    } finally {
      set.cleanup();
    }
  });
});

describe("phrase matches first", () => {
  let set: TempArtifacts;
  // Every video has all three words; only the least viewed one has them as the phrase "green river whiskey".
  const records = Array.from({ length: 30 }, (_, i) => {
    const n = i + 1;
    const text = n === 1 ? "a green river whiskey bottle" : `whiskey by the river, a green field, river river whiskey green number${n}`;
    return makeVideo(n, { text });
  });
  beforeAll(async () => {
    set = await buildTempArtifacts(records);
  });
  afterAll(() => set.cleanup());

  it("ranks a transcript containing the words as a phrase above more viewed and more repetitive ones", () => {
    const catalog = openCatalog({ dir: set.dir, search: { candidates: 5 } });
    const result = catalog.search(page("green river whiskey", { limit: 3 }));
    expect(result.results[0]!.videoId).toBe(videoId(1));
    expect(result.total).toBe(30);
    catalog.close();
  });

  it("pages through both tiers without gaps or repeats", () => {
    const catalog = openCatalog({ dir: set.dir, search: { candidates: 4 } });
    const seen: string[] = [];
    for (let offset = 0; ; offset += 7) {
      const result = catalog.search(page("river whiskey green", { limit: 7, offset }));
      seen.push(...result.results.map((r) => r.videoId));
      expect(result.total).toBe(30);
      if (!result.hasMore) break;
    }
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);
    catalog.close();
  });

  it("does not split a one-word query into tiers", () => {
    const catalog = openCatalog({ dir: set.dir });
    expect(catalog.search(page("whiskey", { limit: 100 })).results).toHaveLength(30);
    catalog.close();
  });
});
