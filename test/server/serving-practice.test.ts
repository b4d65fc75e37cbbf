/**
 * Practice requests before a process listens (server/start/serving-practice.ts):
 * real searches over a real loopback server of their own, answered 200, its
 * port closed afterwards, and nothing of them left in the catalog's result cache.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../server/config.js";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { createLogger } from "../../server/log.js";
import { searchRequestPath } from "../../server/routes/search.js";
import { practiceServing } from "../../server/start/serving-practice.js";
import { buildFixtureArtifacts, type Artifacts } from "./helpers/test-server.js";

let artifacts: Artifacts;
let catalog: ArtifactCatalog;
const config = loadConfig({ ACCESS_LOG: "off", LOG_LEVEL: "error" });
const log = createLogger({ level: "error" });

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  catalog = openCatalog({ dir: artifacts.dir });
});
afterAll(() => {
  catalog.close();
  artifacts.cleanup();
});

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

describe("practice requests", () => {
  test("are searches of the set's own words, each a request path of the search route", () => {
    const searches = catalog.practiceSearches(40);
    expect(searches.length).toBeGreaterThan(5);
    expect(new Set(searches.map((s) => `${s.q}|${s.offset}|${s.minViews}`)).size).toBe(searches.length);
    for (const search of searches) {
      const url = new URL(searchRequestPath(search), "http://x");
      expect(url.pathname).toBe("/v1/search");
      expect(url.searchParams.get("q")).toBe(search.q);
      expect(Number(url.searchParams.get("offset"))).toBe(search.offset);
      expect(url.searchParams.get("minViews")).toBe(search.minViews === undefined ? null : String(search.minViews));
    }
    // Without the warm-up, no practice either.
    const cold = openCatalog({ dir: artifacts.dir, warmSearches: false });
    try {
      expect(cold.practiceSearches(40)).toEqual([]);
    } finally {
      cold.close();
    }
  });

  test("are answered 200 by an app of their own, whose loopback port is closed when they end", async () => {
    const searches = catalog.practiceSearches(40);
    const outcome = await practiceServing({ config, catalog, searches, log });
    expect(outcome).toMatchObject({ answered: searches.length, failed: 0 });
    expect(outcome.port).toBeGreaterThan(0);
    expect(await refused(outcome.port)).toBe(true);
  });

  test("stop at their time budget, each request sent either answered or counted as failed", async () => {
    const searches = catalog.practiceSearches(40);
    const outcome = await practiceServing({ config, catalog, searches, log, budgetMs: 0 });
    expect(outcome.answered + outcome.failed).toBeLessThan(searches.length);
    expect(outcome.failed).toBe(0);
  });
});
