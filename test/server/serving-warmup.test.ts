import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { loadConfig } from "../../server/config.js";
import { openCatalog, type ArtifactCatalog } from "../../server/data/artifact-catalog.js";
import type { SearchParams } from "../../server/data/catalog.js";
import { TranscriptSearch } from "../../server/search/search.js";
import { oneKeyStore, searchRequestPath, warmServing } from "../../server/serving-warmup.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

/** The parameters that are set, in one key order. */
const canonical = (params: SearchParams) => JSON.stringify(Object.entries(params).filter(([, value]) => value !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));

/** Listening TCP servers of this process. */
const listeners = () => process.getActiveResourcesInfo().filter((kind) => kind === "TCPServerWrap").length;

describe("the serving warm-up", () => {
  let set: TempArtifacts;
  let catalog: ArtifactCatalog;
  let searched: SearchParams[];

  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 5, videos: 120, channels: 3 });
    set = await buildTempArtifacts(Array.from({ length: 120 }, (_, i) => corpus.videoAt(i)));
    catalog = openCatalog({ dir: set.dir });
    searched = (await catalog.warm()).searched;
  }, 60_000);
  afterAll(() => {
    catalog?.close();
    set?.cleanup();
  });

  it("sends each warm-up search over HTTP to the catalog, every one answered 200, and closes its listener", async () => {
    expect(searched.length).toBeGreaterThan(10);
    const before = listeners();
    const searches = vi.spyOn(TranscriptSearch.prototype, "search");
    try {
      const warmth = await warmServing({ config: loadConfig({}), catalog, searches: searched, budgetMs: 60_000 });
      expect(warmth).toMatchObject({ requests: searched.length, failed: 0 });
      // Each request searched the catalog with the parameters it was sent (the route parsed them back).
      const sent = searches.mock.calls.map(([params]) => canonical(params));
      expect(sent.sort()).toEqual(searched.map(canonical).sort());
    } finally {
      searches.mockRestore();
    }
    // The handle goes once its close completes, a turn of the event loop after the server's 'close'.
    await vi.waitFor(() => expect(listeners()).toBe(before), { timeout: 2000 });
  });

  it("sends nothing once its time is up", async () => {
    const warmth = await warmServing({ config: loadConfig({}), catalog, searches: searched, budgetMs: 0 });
    expect(warmth).toMatchObject({ requests: 0, failed: 0 });
  });

  it("builds the request a client sends for a search", () => {
    expect(searchRequestPath({ q: "river bank", limit: 10, offset: 100, minViews: 5000 })).toBe("/v1/search?q=river+bank&limit=10&offset=100&minViews=5000");
    expect(searchRequestPath({ q: "café", limit: 20, offset: 0, channel: "UC123" })).toBe("/v1/search?q=caf%C3%A9&limit=20&offset=0&channel=UC123");
  });

  it("accepts only its own key, and writes nothing", () => {
    const keys = oneKeyStore("warmup_abc");
    expect(keys.verify("warmup_abc")).toMatchObject({ plan: "pro", revokedAt: null });
    expect(keys.verify("warmup_abd")).toBeUndefined();
    expect(keys.verify("warmup_ab")).toBeUndefined();
    expect(() => keys.create({ plan: "free", name: "x" })).toThrow(/only its own key/);
    expect(keys.revoke("00000000")).toBe(false);
  });
});
