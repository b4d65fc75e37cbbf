/**
 * One way to resolve a transcript, over the real server and the YouTube
 * stand-in: a language code names the same transcript however it is
 * spelled (stored, in the live store, or fetched live), and a single GET and
 * a bulk item for the same id get the same answer for every outcome the
 * stand-in can produce.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { inMemoryCorpus } from "../../scripts/youtube-standin/corpus.js";
import type { Fault } from "../../scripts/youtube-standin/faults.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";
import { call, expectProblem, postJson, type ApiResponse } from "../server/helpers/http.js";
import { CAPTIONED_STORED, LIVE_CHANNEL, PARTIAL_STORED, STORED, artifactRecords } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

function video(videoId: string, transcripts: VideoRecord["transcripts"]): VideoRecord {
  return makeVideo({ videoId, channelId: LIVE_CHANNEL, channelTitle: "Live Test Channel", channelHandle: "@livetest", title: `Video ${videoId}`, transcripts });
}
const german = (id: string) =>
  video(id, [transcript("de", "German", false, [`Das ist die deutsche Spur von ${id}`]), transcript("en", "English", false, [`the English track of ${id}`])]);
/** Regional English only: `en` is not among its tracks. */
const regional = (id: string) =>
  video(id, [
    transcript("en-GB", "English (United Kingdom)", false, [`the British track of ${id}`]),
    transcript("en-US", "English (United States)", false, [`the American track of ${id}`]),
  ]);
/** Regional and plain English. */
const english = (id: string) =>
  video(id, [transcript("en-GB", "English (United Kingdom)", false, [`the British track of ${id}`]), transcript("en", "English", false, [`the plain English track of ${id}`])]);

/** Stored in the artifact set: regional English only. */
const STORED_REGIONAL = regional("storedreg01");

const UPSTREAM: VideoRecord[] = [
  ...["german00001", "german00002", "german00003", "german00004"].map(german),
  ...["regional001", "regional002"].map(regional),
  english("english0001"),
  STORED_REGIONAL,
  video("nocaptions1", []),
  ...Array.from({ length: 40 }, (_, i) => german(`parity${String(i).padStart(5, "0")}`)),
];

let standin: Standin;
let server: LiveServer;
/** No negative cache, a short upstream timeout: every request reaches the stand-in. */
let uncached: LiveServer;
/** Without live fetching: storage's own answers. */
let offline: LiveServer;

beforeAll(async () => {
  standin = await startStandin({
    corpus: inMemoryCorpus(UPSTREAM, [{ channelId: LIVE_CHANNEL, title: "Live Test Channel", handle: "@livetest", videoIds: UPSTREAM.map((v) => v.videoId) }]),
  });
  const records = [...artifactRecords(), STORED_REGIONAL];
  [server, uncached, offline] = await Promise.all([
    startLiveServer({ standin, records }),
    startLiveServer({ standin, records, env: { NEGATIVE_CACHE_SECONDS: "0", YOUTUBE_TIMEOUT_MS: "500", YOUTUBE_MAX_BLOCKED_RETRIES: "0" } }),
    startLiveServer({ standin, records, env: { LIVE_FETCH: "off" } }),
  ]);
});
afterAll(async () => {
  await server?.close();
  await uncached?.close();
  await offline?.close();
  await standin?.close();
});

const get = (s: LiveServer, path: string) => call(s.baseUrl, path, { key: s.key });
const bulk = (s: LiveServer, body: object) => postJson(s.baseUrl, "/v1/transcripts/bulk", s.key, body);
const playerCalls = (id: string) => standin.stats.byVideo[id]?.player ?? 0;

describe("one language rule: codes compared case-insensitively, exact tags", () => {
  it("lang=DE on a live miss fetches the German track, and every spelling is then served from storage", async () => {
    const first = await get(server, "/v1/transcript/german00001?lang=DE");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ cached: false, transcript: { languageCode: "de", language: "German", isGenerated: false } });
    for (const lang of ["de", "DE", "De"]) {
      const again = await get(server, `/v1/transcript/german00001?lang=${lang}`);
      expect(again.body, lang).toMatchObject({ cached: true, transcript: { languageCode: "de", script: first.body.transcript.script } });
    }
    expect(playerCalls("german00001")).toBe(1);
  });

  it("lang=de then lang=DE: the same transcript, the second from storage", async () => {
    const first = await get(server, "/v1/transcript/german00002?lang=de");
    const second = await get(server, "/v1/transcript/german00002?lang=DE");
    expect(first.body).toMatchObject({ cached: false, transcript: { languageCode: "de" } });
    expect(second.body).toMatchObject({ cached: true, transcript: { languageCode: "de", script: first.body.transcript.script } });
  });

  it("concurrent misses for DE and de share one upstream fetch", async () => {
    const joined = server.runtime.fetcher!.stats.joined;
    standin.setFault({ kind: "slow", delayMs: 300, endpoint: "player" });
    const [upper, lower] = await Promise.all([get(server, "/v1/transcript/german00003?lang=DE"), get(server, "/v1/transcript/german00003?lang=de")]).finally(() =>
      standin.setFault(null),
    );
    expect(upper.status).toBe(200);
    expect(lower.status).toBe(200);
    expect(upper.body.transcript).toEqual(lower.body.transcript);
    expect(playerCalls("german00003")).toBe(1);
    expect(server.runtime.fetcher!.stats.joined).toBe(joined + 1);
  });

  it("a language the video lacks is remembered for every spelling (one upstream fetch)", async () => {
    const upper = await get(server, "/v1/transcript/german00004?lang=XX");
    expectProblem(upper, 404, "language_not_available");
    expect(upper.body.availableLanguages).toEqual(["de", "en"]);
    const lower = await get(server, "/v1/transcript/german00004?lang=xx");
    expectProblem(lower, 404, "language_not_available");
    expect(lower.body.availableLanguages).toEqual(["de", "en"]);
    expect(playerCalls("german00004")).toBe(1);
  });

  it("lang=en-us on a live miss gives the en-US track; EN-US, en-US and en-us are then served from storage", async () => {
    const first = await get(server, "/v1/transcript/regional001?lang=en-us");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ cached: false, transcript: { languageCode: "en-US", language: "English (United States)" } });
    for (const lang of ["EN-US", "en-US", "en-us"]) {
      const again = await get(server, `/v1/transcript/regional001?lang=${lang}`);
      expect(again.body, lang).toMatchObject({ cached: true, transcript: { languageCode: "en-US", script: first.body.transcript.script } });
    }
  });

  it("lang=en-us of a video in the artifact set is its en-US track, as after a live fetch", async () => {
    for (const lang of ["en-us", "EN-US", "en-US"]) {
      const res = await get(server, `/v1/transcript/${STORED_REGIONAL.videoId}?lang=${lang}`);
      expect(res.body, lang).toMatchObject({ cached: true, transcript: { languageCode: "en-US", language: "English (United States)" } });
    }
  });

  it("bulk follows the same rule: lang=DE and lang=EN-US find what lang=de and lang=en-us stored", async () => {
    const res = await bulk(server, { videoIds: ["german00001", "german00002"], lang: "DE" });
    expect(res.body.errors).toEqual([]);
    expect(res.body.transcripts.map((t: any) => [t.cached, t.transcript.languageCode])).toEqual([
      [true, "de"],
      [true, "de"],
    ]);
    const us = await bulk(server, { videoIds: ["regional001", STORED_REGIONAL.videoId], lang: "EN-US" });
    expect(us.body.transcripts.map((t: any) => [t.cached, t.transcript.languageCode])).toEqual([
      [true, "en-US"],
      [true, "en-US"],
    ]);
  });

  it("lang=en is exact: the en track beside en-GB; with only en-GB and en-US, a translation into en", async () => {
    const plain = await get(server, "/v1/transcript/english0001?lang=en");
    expect(plain.body.transcript).toMatchObject({ languageCode: "en", language: "English", isGenerated: false });
    const british = await get(server, "/v1/transcript/english0001?lang=EN-gb");
    expect(british.body.transcript).toMatchObject({ languageCode: "en-GB", isGenerated: false });
    const translated = await get(server, "/v1/transcript/regional002?lang=en");
    expect(translated.body.transcript).toMatchObject({ languageCode: "en", isGenerated: true });
    expect(translated.body.transcript.script).toMatch(/^\[en\] /);
  });

  it("a machine translation is stored under YouTube's code, not the request's spelling", async () => {
    const res = await get(server, "/v1/transcript/regional002?lang=FR");
    expect(res.body).toMatchObject({ cached: false, transcript: { languageCode: "fr", language: "French", isGenerated: true } });
    expect((await get(server, "/v1/transcript/regional002?lang=fr")).body).toMatchObject({ cached: true, transcript: { languageCode: "fr" } });
  });
});

/** What a single request and a bulk item must agree on. */
function singleAnswer(res: ApiResponse): object {
  if (res.status === 200) return { transcript: { languageCode: res.body.transcript.languageCode, script: res.body.transcript.script } };
  return { code: res.body.code, detail: res.body.detail, ...(res.body.availableLanguages ? { availableLanguages: res.body.availableLanguages } : {}) };
}
function bulkAnswer(res: ApiResponse): object {
  expect(res.status).toBe(200);
  const [item] = res.body.transcripts;
  if (item !== undefined) return { transcript: { languageCode: item.transcript.languageCode, script: item.transcript.script } };
  const { videoId: _videoId, ...error } = res.body.errors[0];
  return error;
}

let nextParity = 0;
const parityId = () => `parity${String(nextParity++).padStart(5, "0")}`;

describe("a single GET and a bulk item get the same answer", () => {
  const outcomes: { name: string; id?: string; lang?: string; fault?: Fault; status: number; code?: string }[] = [
    { name: "a transcript", status: 200 },
    { name: "video_unavailable (unknown to YouTube)", id: "notonyoutub", status: 404, code: "video_unavailable" },
    { name: "transcripts_disabled", id: "nocaptions1", status: 404, code: "transcripts_disabled" },
    { name: "language_not_available", lang: "xx", status: 404, code: "language_not_available" },
    { name: "request_blocked", fault: { kind: "bot-check" }, status: 502, code: "request_blocked" },
    { name: "ip_blocked", fault: { kind: "captcha" }, status: 502, code: "ip_blocked" },
    // Without Retry-After: the exit then rests only the short cool-down this server has, not into the cases after this one.
    { name: "upstream_rate_limited", fault: { kind: "rate-limit" }, status: 502, code: "upstream_rate_limited" },
    { name: "upstream_status", fault: { kind: "server-error", endpoint: "player" }, status: 502, code: "upstream_status" },
    { name: "upstream_unparsable (JSON)", fault: { kind: "malformed-json" }, status: 502, code: "upstream_unparsable" },
    { name: "upstream_unparsable (XML)", fault: { kind: "truncated-xml" }, status: 502, code: "upstream_unparsable" },
    { name: "empty_transcript", fault: { kind: "empty-body" }, status: 502, code: "empty_transcript" },
    { name: "connection_failed (reset)", fault: { kind: "connection-reset", endpoint: "timedtext" }, status: 502, code: "connection_failed" },
    { name: "connection_failed (cut body)", fault: { kind: "truncated-body", endpoint: "player" }, status: 502, code: "connection_failed" },
    { name: "upstream_timeout", fault: { kind: "slow", delayMs: 1_000, endpoint: "player" }, status: 504, code: "upstream_timeout" },
  ];

  it.each(outcomes)("$name: $status $code", async ({ id = parityId(), lang = "en", fault, status, code }) => {
    standin.setFault(fault ?? null);
    try {
      const single = await get(uncached, `/v1/transcript/${id}?lang=${lang}`);
      if (code === undefined) expect(single.status).toBe(status);
      else expectProblem(single, status, code);
      // A transcript is stored by the first request; the bulk request must fetch its own.
      const bulkId = status === 200 ? parityId() : id;
      const viaBulk = await bulk(uncached, { videoIds: [bulkId], lang });
      const expected = singleAnswer(status === 200 ? await get(uncached, `/v1/transcript/${bulkId}?lang=${lang}`) : single);
      expect(bulkAnswer(viaBulk)).toEqual(expected);
      if (status === 200) expect(viaBulk.body.fetched).toBe(1);
    } finally {
      standin.setFault(null);
    }
  });

  it.each([
    { name: "video_not_found", id: "notstored01", lang: "en", code: "video_not_found" },
    { name: "transcript_not_found", id: CAPTIONED_STORED.videoId, lang: "en", code: "transcript_not_found" },
    { name: "language_not_available", id: PARTIAL_STORED.videoId, lang: "EN", code: "language_not_available" },
    { name: "a stored transcript", id: STORED.videoId, lang: "EN", code: undefined },
  ])("without live fetching, $name", async ({ id, lang, code }) => {
    const single = await get(offline, `/v1/transcript/${id}?lang=${lang}`);
    if (code === undefined) expect(single.status).toBe(200);
    else expectProblem(single, 404, code);
    const viaBulk = await bulk(offline, { videoIds: [id], lang });
    expect(bulkAnswer(viaBulk)).toEqual(singleAnswer(single));
  });

  it("upstream_busy (queue full) and deadline_exceeded", async () => {
    const tight = await startLiveServer({
      standin,
      records: artifactRecords(),
      env: { LIVE_FETCH_CONCURRENCY: "1", LIVE_FETCH_QUEUE: "0", REQUEST_DEADLINE_MS: "400" },
    });
    standin.setFault({ kind: "slow", delayMs: 1_500, endpoint: "player" });
    try {
      // The one slot is taken by a fetch that outlasts the deadline.
      const [running, busy] = [parityId(), parityId()];
      const first = get(tight, `/v1/transcript/${running}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const single = await get(tight, `/v1/transcript/${busy}`);
      expectProblem(single, 503, "upstream_busy");
      expect(bulkAnswer(await bulk(tight, { videoIds: [busy] }))).toEqual(singleAnswer(single));
      const late = await first;
      expectProblem(late, 504, "deadline_exceeded");
      // A bulk request joining the same fetch, still running, is cut at its deadline the same way.
      expect(bulkAnswer(await bulk(tight, { videoIds: [running] }))).toEqual(singleAnswer(late));
    } finally {
      standin.setFault(null);
      await tight.close();
    }
  });
});
