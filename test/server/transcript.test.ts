/** GET /v1/transcript/:videoId beyond its shape: ETag/304, and the hand-over to the transcript source. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { IDS } from "./helpers/fixture-records.js";
import { call, expectProblem } from "./helpers/http.js";
import { createStandInSource, type StandInSource } from "./helpers/stand-in-source.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;
let source: StandInSource;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  source = createStandInSource();
  server = await startTestServer({ artifacts, transcriptSource: source });
});
afterAll(async () => {
  await server.close();
  artifacts.cleanup();
});

const get = (path: string, headers: Record<string, string> = {}) => call(server.baseUrl, path, { key: server.keys.pro, headers });

describe("conditional requests", () => {
  test("the weak ETag is stable across requests although timing changes, and differs per representation", async () => {
    const a = await get(`/v1/transcript/${IDS.markup}`);
    const b = await get(`/v1/transcript/${IDS.markup}`);
    const withMeta = await get(`/v1/transcript/${IDS.markup}?includeMetadata=true`);
    const other = await get(`/v1/transcript/${IDS.chapters}`);
    expect(a.headers.get("etag")).toBe(b.headers.get("etag"));
    expect(withMeta.headers.get("etag")).not.toBe(a.headers.get("etag"));
    expect(other.headers.get("etag")).not.toBe(a.headers.get("etag"));
  });

  test("If-None-Match with the ETag gives 304 without a body, keeping ETag, caching and rate-limit headers", async () => {
    const first = await get(`/v1/transcript/${IDS.markup}`);
    const etag = first.headers.get("etag") as string;
    for (const header of [etag, etag.replace(/^W\//, ""), `W/"nope", ${etag}`, "*"]) {
      const res = await get(`/v1/transcript/${IDS.markup}`, { "If-None-Match": header });
      expect(res.status).toBe(304);
      expect(res.body).toBeUndefined();
      expect(res.headers.get("etag")).toBe(etag);
      expect(res.headers.get("cache-control")).toBe("private, max-age=300");
      expect(res.headers.get("x-ratelimit-limit")).toBe("100");
      expect(res.headers.get("x-request-id")).toBeTruthy();
    }
    const changed = await get(`/v1/transcript/${IDS.markup}`, { "If-None-Match": 'W/"something-else"' });
    expect(changed.status).toBe(200);
  });

  test("errors carry neither an ETag nor the transcript caching header", async () => {
    const res = await get("/v1/transcript/typed404aaa", { "If-None-Match": "*" });
    expectProblem(res, 404, "video_not_found");
    expect(res.headers.get("etag")).toBeNull();
  });
});

describe("videos storage does not know", () => {
  test("are fetched from the transcript source and returned with cached false and the source's method", async () => {
    source.calls.length = 0;
    const res = await get("/v1/transcript/livevideo99?lang=en&includeMetadata=true");
    expect(res.status).toBe(200);
    expect(source.calls).toEqual(["livevideo99"]);
    expect(res.body).toMatchObject({
      videoId: "livevideo99",
      title: "Live livevideo99",
      cached: false,
      debug: { method: "innertube", usedProxy: false },
      description: "fetched live",
      chapters: [],
      keywords: [],
    });
    expect(res.body.transcript.subs).toEqual([{ text: "hello live world", offset: "0", duration: "4" }]);
  });

  test("are sent to the source too when the video is stored without the wanted transcript", async () => {
    source.calls.length = 0;
    expect((await get(`/v1/transcript/${IDS.german}`)).body).toMatchObject({ cached: false, transcript: { languageCode: "en" } });
    expect((await get(`/v1/transcript/${IDS.silent}`)).body).toMatchObject({ cached: false });
    expect(source.calls).toEqual([IDS.german, IDS.silent]);
  });

  test("pass the requested language to the source", async () => {
    const res = await get("/v1/transcript/livevideo98?lang=pt-BR");
    expect(res.body.transcript.languageCode).toBe("pt-BR");
  });
});
