/** POST /v1/transcripts/bulk: order, duplicates, per-id errors and the hand-over to the transcript source. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { IDS } from "./helpers/fixture-records.js";
import { postJson } from "./helpers/http.js";
import { createStandInSource, type StandInSource } from "./helpers/stand-in-source.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let plain: TestServer;
let live: TestServer;
let source: StandInSource;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  plain = await startTestServer({ artifacts });
  source = createStandInSource({ delayMs: 40 });
  live = await startTestServer({ artifacts, transcriptSource: source, env: { BULK_FETCH_CONCURRENCY: "3" } });
});
afterAll(async () => {
  await plain.close();
  await live.close();
  artifacts.cleanup();
});

const bulk = (server: TestServer, body: unknown) => postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.pro, body);

describe("bulk without a transcript source", () => {
  test("keeps request order, collapses duplicates and reports each id it could not obtain", async () => {
    const res = await bulk(plain, {
      videoIds: [IDS.unknown, IDS.chapters, IDS.silent, IDS.markup, IDS.chapters, IDS.german, IDS.unknown],
    });
    expect(res.status).toBe(200);
    expect(res.body.requested).toBe(5);
    expect(res.body.found).toBe(2);
    expect(res.body.fetched).toBe(0);
    expect(res.body.transcripts.map((t: { videoId: string }) => t.videoId)).toEqual([IDS.chapters, IDS.markup]);
    expect(res.body.errors).toEqual([
      { videoId: IDS.unknown, code: "video_not_found", detail: expect.any(String) },
      { videoId: IDS.silent, code: "transcript_not_found", detail: expect.any(String) },
      { videoId: IDS.german, code: "language_not_available", detail: expect.any(String), availableLanguages: ["de"] },
    ]);
  });

  test("honours lang for every id", async () => {
    const res = await bulk(plain, { videoIds: [IDS.german, IDS.chapters, IDS.markup], lang: "de" });
    expect(res.body.transcripts.map((t: { videoId: string }) => t.videoId)).toEqual([IDS.german]);
    expect(res.body.transcripts[0].transcript.languageCode).toBe("de");
    expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(["language_not_available", "language_not_available"]);
  });

  test("accepts exactly 100 ids", async () => {
    const videoIds = Array.from({ length: 100 }, (_, i) => `bulk${String(i).padStart(7, "0")}`);
    const res = await bulk(plain, { videoIds: [IDS.markup, ...videoIds.slice(1)] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requested: 100, found: 1 });
    expect(res.body.errors).toHaveLength(99);
  });
});

describe("bulk with a transcript source", () => {
  test("fetches missing ids with bounded concurrency, counts them in fetched and marks them not cached", async () => {
    source.calls.length = 0;
    source.maxConcurrent = 0;
    const missing = Array.from({ length: 8 }, (_, i) => `slowvideo0${i}`);
    const res = await bulk(live, { videoIds: [missing[0], IDS.markup, ...missing.slice(1)] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requested: 9, found: 9, fetched: 8, errors: [] });
    expect(res.body.transcripts.map((t: { videoId: string }) => t.videoId)).toEqual([missing[0], IDS.markup, ...missing.slice(1)]);
    expect(res.body.transcripts[0]).toMatchObject({ cached: false, title: `Live ${missing[0]}` });
    expect(res.body.transcripts[1]).toMatchObject({ cached: true });
    expect(source.maxConcurrent).toBe(3);
    expect([...source.calls].sort()).toEqual([...missing].sort());
  });

  test("does not call the source when fetchMissing is false", async () => {
    source.calls.length = 0;
    const res = await bulk(live, { videoIds: ["livevideo01", IDS.markup], fetchMissing: false });
    expect(source.calls).toEqual([]);
    expect(res.body).toMatchObject({ requested: 2, found: 1, fetched: 0 });
    expect(res.body.errors).toEqual([{ videoId: "livevideo01", code: "not_fetched", detail: expect.any(String) }]);
  });

  test("reports the source's typed errors per id, and an untyped failure as internal_error without details", async () => {
    const res = await bulk(live, { videoIds: ["typed404aaa", "livevideo02", "upstreamaaa", "boomboomaaa"] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requested: 4, found: 1, fetched: 1 });
    expect(res.body.errors).toEqual([
      { videoId: "typed404aaa", code: "video_not_found", detail: "The video does not exist." },
      { videoId: "upstreamaaa", code: "upstream_unavailable", detail: "The source did not answer." },
      { videoId: "boomboomaaa", code: "internal_error", detail: expect.not.stringContaining("kaboom") },
    ]);
  });

  test("asks the source about stored videos without the requested transcript, unless fetchMissing is false", async () => {
    source.calls.length = 0;
    const res = await bulk(live, { videoIds: [IDS.silent, IDS.german] });
    expect(res.body).toMatchObject({ requested: 2, found: 2, fetched: 2 });
    expect([...source.calls].sort()).toEqual([IDS.german, IDS.silent].sort());
    source.calls.length = 0;
    const stored = await bulk(live, { videoIds: [IDS.silent, IDS.german], fetchMissing: false });
    expect(source.calls).toEqual([]);
    expect(stored.body.errors.map((e: { code: string }) => e.code)).toEqual(["transcript_not_found", "language_not_available"]);
  });
});
