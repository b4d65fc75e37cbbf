/**
 * `track` on GET /v1/transcript and POST /v1/transcripts/bulk, over a real
 * server and a real artifact set where a video has a manual and an
 * auto-generated English track: the default stays the manual one, `generated`
 * answers the other in every format, a track that is not stored is a 404 with
 * its own code, and the response cache keeps the two apart (the same requests
 * answered alike with the cache on and off, in either order).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureRecords, IDS } from "./helpers/fixture-records.js";
import { call, expectProblem, postJson } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let cached: TestServer;
let uncached: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  [cached, uncached] = await Promise.all([startTestServer({ artifacts }), startTestServer({ artifacts, env: { RESPONSE_CACHE_MB: "0" } })]);
});
afterAll(async () => {
  await cached?.close();
  await uncached?.close();
  artifacts?.cleanup();
});

const get = (path: string, headers: Record<string, string> = {}, server = cached) => call(server.baseUrl, path, { key: server.keys.pro, headers });
const getText = async (path: string, headers: Record<string, string> = {}, server = cached) => {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { "X-API-Key": server.keys.pro, ...headers } });
  return { status: res.status, etag: res.headers.get("etag"), disposition: res.headers.get("content-disposition"), text: await res.text() };
};

/** The chapters video's English tracks, as the records hold them. */
function englishTracks() {
  const record = fixtureRecords().find((r) => r.videoId === IDS.chapters)!;
  const of = (isGenerated: boolean) => record.transcripts.find((t) => t.languageCode === "en" && t.isGenerated === isGenerated)!;
  const words = (t: ReturnType<typeof of>) => t.segments.map((s) => s.text).join(" ");
  return { manual: { track: of(false), words: words(of(false)) }, generated: { track: of(true), words: words(of(true)) } };
}

describe("GET /v1/transcript/:videoId?track=", () => {
  it("answers the manual track by default and with track=any or manual, the auto-generated one with track=generated", async () => {
    const { manual, generated } = englishTracks();
    for (const query of ["", "?track=any", "?track=manual", "?lang=en&track=manual"]) {
      const res = await get(`/v1/transcript/${IDS.chapters}${query}`);
      expect(res.status, query).toBe(200);
      expect(res.body.transcript, query).toMatchObject({ isGenerated: false, language: manual.track.language, script: manual.words });
    }
    const auto = await get(`/v1/transcript/${IDS.chapters}?track=generated`);
    expect(auto.status, JSON.stringify(auto.body)).toBe(200);
    expect(auto.body).toMatchObject({ videoId: IDS.chapters, cached: true });
    expect(auto.body.transcript).toMatchObject({ isGenerated: true, language: generated.track.language, languageCode: "en", script: generated.words });
    expect(auto.body.transcript.subs.map((s: { text: string }) => s.text)).toEqual(generated.track.segments.map((s) => s.text));
  });

  it("gives the asked-for track as text, SubRip and WebVTT, by format or Accept, each with its own ETag", async () => {
    const { manual, generated } = englishTracks();
    for (const [format, accept] of [
      ["text", "text/plain"],
      ["srt", "application/x-subrip"],
      ["vtt", "text/vtt"],
    ] as const) {
      const auto = await getText(`/v1/transcript/${IDS.chapters}?track=generated&format=${format}`);
      const byAccept = await getText(`/v1/transcript/${IDS.chapters}?track=generated`, { Accept: accept });
      const plain = await getText(`/v1/transcript/${IDS.chapters}?format=${format}`);
      expect(auto.status).toBe(200);
      expect(byAccept).toEqual(auto);
      expect(auto.text).toContain(generated.track.segments[0]!.text);
      expect(auto.text).not.toContain(manual.track.segments[0]!.text);
      expect(plain.text).toContain(manual.track.segments[0]!.text);
      expect(auto.etag).not.toBe(plain.etag);
      expect(auto.disposition).toBe(`attachment; filename="${IDS.chapters}.en.${format === "text" ? "txt" : format}"`);
    }
    const json = await get(`/v1/transcript/${IDS.chapters}?track=generated`);
    const again = await get(`/v1/transcript/${IDS.chapters}?track=generated`, { "If-None-Match": json.headers.get("etag")! });
    expect(again.status).toBe(304);
    expect(json.headers.get("etag")).not.toBe((await get(`/v1/transcript/${IDS.chapters}`)).headers.get("etag"));
  });

  it("is 404 track_not_available when the language is stored only as the other kind; language_not_available when not at all", async () => {
    // Manual only: English (markup), Spanish and German (chapters, german).
    for (const path of [`/v1/transcript/${IDS.markup}?track=generated`, `/v1/transcript/${IDS.chapters}?lang=es&track=generated`, `/v1/transcript/${IDS.german}?lang=de&track=generated`]) {
      const res = await get(path);
      expectProblem(res, 404, "track_not_available");
      expect(res.body.detail).toBe("The video has a transcript in the requested language, but not of the requested track (manual or auto-generated); track=any answers the one it has.");
    }
    const text = await get(`/v1/transcript/${IDS.markup}?track=generated&format=srt`);
    expectProblem(text, 404, "track_not_available");
    const other = await get(`/v1/transcript/${IDS.markup}?lang=de&track=generated`);
    expectProblem(other, 404, "language_not_available");
    expect(other.body.availableLanguages).toEqual(["en"]);
  });

  it("refuses a track it does not know with invalid_parameter naming it", async () => {
    const res = await get(`/v1/transcript/${IDS.chapters}?track=asr`);
    expectProblem(res, 400, "invalid_parameter");
    expect(res.body.errors).toEqual([{ param: "track", message: "must be one of any, manual, generated" }]);
  });
});

describe("the response cache keeps tracks apart", () => {
  const withoutTiming = (body: unknown) => ({ ...(body as Record<string, unknown>), timing: undefined });

  it("answers each request as the server without a cache does, whichever track was asked for first", async () => {
    // Each order fills the cache with one track before asking for the other.
    const orders = [
      ["", "?track=generated", "?track=manual", "?track=generated", ""],
      ["?format=srt&track=generated", "?format=srt", "?format=srt&track=generated", "?format=vtt", "?format=vtt&track=generated"],
      ["?includeMetadata=true&track=generated", "?includeMetadata=true", "?includeMetadata=true&track=generated"],
    ];
    for (const order of orders) {
      for (const query of order) {
        const path = `/v1/transcript/${IDS.chapters}${query}`;
        const [fromCache, fresh] = [await getText(path), await getText(path, {}, uncached)];
        expect(fromCache.status, query).toBe(200);
        expect(fromCache.etag, query).toBe(fresh.etag);
        if (query.includes("format=")) expect(fromCache.text, query).toBe(fresh.text);
        else expect(withoutTiming(JSON.parse(fromCache.text)), query).toEqual(withoutTiming(JSON.parse(fresh.text)));
      }
    }
  });

  it("answers a bulk request per track as the server without a cache does", async () => {
    const videoIds = [IDS.chapters, IDS.markup, IDS.german];
    const bodies = [];
    for (const body of [{ videoIds }, { videoIds, track: "generated" }, { videoIds, track: "manual" }, { videoIds, track: "generated" }]) {
      const [a, b] = [await postJson(cached.baseUrl, "/v1/transcripts/bulk", cached.keys.pro, body), await postJson(uncached.baseUrl, "/v1/transcripts/bulk", uncached.keys.pro, body)];
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(withoutTiming(a.body)).toEqual(withoutTiming(b.body));
      bodies.push(a.body);
    }
    const { generated } = englishTracks();
    expect(bodies[1].transcripts).toEqual([expect.objectContaining({ videoId: IDS.chapters, transcript: expect.objectContaining({ isGenerated: true, script: generated.words }) })]);
    expect(bodies[1].errors).toEqual([
      { videoId: IDS.markup, code: "track_not_available", detail: expect.any(String) },
      { videoId: IDS.german, code: "language_not_available", detail: expect.any(String), availableLanguages: ["de"] },
    ]);
    expect(bodies[0].transcripts.map((t: { transcript: { isGenerated: boolean } }) => t.transcript.isGenerated)).toEqual([false, false]);
    expect(bodies[2]).toEqual({ ...bodies[0], timing: bodies[2].timing });
  });
});
