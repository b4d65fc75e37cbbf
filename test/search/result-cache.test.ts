/**
 * The result cache never changes an answer: a query's results, snippets and
 * moments are the same whether the cache is cold, warm from the same query,
 * or warm from any other query, including the query's own quoted and
 * unquoted forms or with other filters, in the artifact set and in the
 * live store, and the same as with the cache off.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACT_FILES, type SegmentRecord } from "../../pipeline/artifact/contract/contract.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { buildQuerySet, type BenchQuery } from "../../scripts/bench/query-set.js";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import type { SearchPage, SearchParams } from "../../server/data/catalog.js";
import { LiveStore } from "../../server/live-store/live-store.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";
import { makeVideo, videoId } from "../helpers/records.js";

const seg = (start: number, text: string): SegmentRecord => ({ start, duration: 3, text });
const track = (segments: SegmentRecord[]) => [{ language: "English", languageCode: "en", isGenerated: false, segments }];

/** "white house" as a phrase in two segments, "house" and "white" alone in others. */
const WHITE_HOUSE = [
  seg(0, "a house by the lake"),
  seg(5, "the white house spoke today"),
  seg(10, "another house down the road"),
  seg(15, "a white fence and a house"),
  seg(20, "back at the white house again"),
  seg(25, "each other house"),
];

describe("a quoted query and its unquoted words", () => {
  let set: TempArtifacts;
  let catalog: ArtifactCatalog;
  const ask = (q: string) => catalog.search({ q, limit: 10, offset: 0 });

  beforeAll(async () => {
    set = await buildTempArtifacts([
      makeVideo(1, { transcripts: track(WHITE_HOUSE) }),
      makeVideo(2, { text: "white house white house and the white house" }),
    ]);
    catalog = openCatalog({ dir: set.dir });
  });
  afterAll(() => {
    catalog.close();
    set?.cleanup();
  });

  it("give each form its own moments, whichever ran first", () => {
    catalog.forgetSearches();
    const quotedCold = ask('"white house"');
    const plainCold = (catalog.forgetSearches(), ask("white house"));
    // The quoted form's moments are phrase matches only; the plain form's may be single words.
    const first = quotedCold.results.find((r) => r.videoId === videoId(1))!;
    expect(first.moments.map((m) => m.startSeconds)).toEqual([20]);
    expect(plainCold.results.find((r) => r.videoId === videoId(1))!.moments.length).toBeGreaterThan(1);

    catalog.forgetSearches();
    ask("white house");
    expect(ask('"white house"')).toEqual(quotedCold);
    catalog.forgetSearches();
    ask('"white house"');
    expect(ask("white house")).toEqual(plainCold);
  });

  it("a repeated word is not the word alone", () => {
    catalog.forgetSearches();
    const once = ask("house");
    const twiceCold = (catalog.forgetSearches(), ask("house house"));
    catalog.forgetSearches();
    ask("house");
    expect(ask("house house")).toEqual(twiceCold);
    catalog.forgetSearches();
    ask("house house");
    expect(ask("house")).toEqual(once);
  });
});

/** The forms a query is asked in: as typed, all quoted, its first two words quoted, each word quoted. */
const FORMS: ((q: string) => string)[] = [
  (q) => q,
  (q) => `"${q}"`,
  (q) => {
    const words = q.split(" ");
    return words.length < 2 ? `"${q}"` : `"${words.slice(0, 2).join(" ")}" ${words.slice(2).join(" ")}`.trim();
  },
  (q) => q.split(" ").map((w) => `"${w}"`).join(" "),
];

describe("the result cache over the bench's query kinds", () => {
  let set: TempArtifacts;
  let liveDir: string;
  let live: LiveStore;
  let cached: ArtifactCatalog;
  let uncached: ArtifactCatalog;
  let queries: BenchQuery[];
  /** Date filters to ask with (the first none): a narrow range (a row bitmap), wide ones (the video row joined), open at either end. */
  let dateFilters: Pick<SearchParams, "publishedAfter" | "publishedBefore">[];

  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 53, videos: 400, channels: 6, meanTranscriptWords: 300 });
    set = await buildTempArtifacts(Array.from({ length: corpus.videoCount }, (_, i) => corpus.videoAt(i)));
    liveDir = mkdtempSync(join(tmpdir(), "ts-cache-live-"));
    live = LiveStore.open(join(liveDir, "live.db"));
    cached = openCatalog({ dir: set.dir, live });
    // Fetched since the build: searched beside the set as a second shard.
    const later = createSyntheticCorpus({ seed: 54, videos: 40, channels: 3, meanTranscriptWords: 300 });
    for (let i = 0; i < later.videoCount; i++) cached.storeLive(later.videoAt(i));
    uncached = openCatalog({ dir: set.dir, live, search: { cacheSize: 0 } });
    queries = buildQuerySet(join(set.dir, ARTIFACT_FILES.database), 96, 7);
    const dates = [...new Set(live.db.prepare("SELECT published_at FROM videos").pluck().all() as string[])];
    const artifactDb = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
    dates.push(...(artifactDb.prepare("SELECT published_at FROM videos").pluck().all() as string[]));
    artifactDb.close();
    dates.sort();
    const at = (share: number) => dates[Math.floor(share * (dates.length - 1))]!;
    // Bounds as the schema passes them on (inclusive instants), some of them a stored date exactly.
    dateFilters = [
      {},
      { publishedAfter: at(0.4), publishedBefore: at(0.45) },
      { publishedAfter: at(0.3) },
      { publishedBefore: `${at(0.7).slice(0, 10)}T23:59:59.999Z` },
      { publishedAfter: at(0.1), publishedBefore: at(0.8) },
    ];
  });
  afterAll(() => {
    cached?.close();
    uncached?.close();
    live?.close();
    set?.cleanup();
    if (liveDir) rmSync(liveDir, { recursive: true, force: true });
  });

  const params = (query: BenchQuery, form: number, dates = 0): SearchParams => {
    const p: SearchParams = { q: FORMS[form]!(query.q), limit: query.limit, offset: query.offset, ...dateFilters[dates] };
    if (query.channel !== undefined) p.channel = query.channel;
    if (query.minViews !== undefined) p.minViews = query.minViews;
    return p;
  };
  const cold = (catalog: ArtifactCatalog, p: SearchParams): SearchPage => {
    catalog.forgetSearches();
    return catalog.search(p);
  };

  it("finds moments for most queries, so the property below compares something", () => {
    const withMoments = queries.filter((q) => cold(cached, params(q, 0)).results.some((r) => r.moments.length > 0));
    expect(withMoments.length).toBeGreaterThan(queries.length / 2);
  });

  it("answers the same cold, warm from itself, warm from any other query and its other forms, and with the cache off", () => {
    const query = () => fc.nat(queries.length - 1);
    const form = () => fc.nat(FORMS.length - 1);
    const dates = () => fc.nat(dateFilters.length - 1);
    fc.assert(
      fc.property(query(), form(), dates(), query(), form(), dates(), form(), (b, bForm, bDates, a, aForm, aDates, ownForm) => {
        const asked = params(queries[b]!, bForm, bDates);
        const reference = cold(uncached, asked);
        expect(cold(cached, asked), "cold").toEqual(reference);
        expect(cached.search(asked), "warm from itself").toEqual(reference);
        cold(cached, params(queries[a]!, aForm, aDates));
        expect(cached.search(asked), `warm from ${JSON.stringify(params(queries[a]!, aForm, aDates))}`).toEqual(reference);
        cold(cached, params(queries[b]!, ownForm));
        expect(cached.search(asked), `warm from its form ${JSON.stringify(params(queries[b]!, ownForm))}`).toEqual(reference);
        // The same query with other dates or none, then this one: the filters are part of every key.
        cold(cached, params(queries[b]!, bForm, (bDates + 1) % dateFilters.length));
        expect(cached.search(asked), "warm from its other dates").toEqual(reference);
      }),
      { numRuns: 300, seed: 53 },
    );
  });
});
