/**
 * GET /v1/transcript/:videoId as plain text, SubRip and WebVTT: chosen by
 * `format` or `Accept`, each checked against its format's rules and read
 * back by independent parsers (the W3C's webvtt-parser; ffmpeg where it is
 * installed), over segments with the edge cases captions have.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { WebVTTParser } from "webvtt-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import type { SegmentRecord } from "../../pipeline/artifact/contract/contract.js";
import { cuesOf, toSrt, toText, toVtt } from "../../server/formats/subtitles.js";
import { makeVideo } from "../youtube/helpers/records.js";
import { call, expectProblem, postJson } from "./helpers/http.js";
import { startTestServer, type TestServer } from "./helpers/test-server.js";

const seg = (start: number, duration: number, text: string): SegmentRecord => ({ start, duration, text });

/** Overlapping auto-generated lines, a 0 s segment, two segments starting together, markup, `-->`, hours, non-ASCII, a last 0 s one. */
const EDGES = [
  seg(0, 3.5, "a <b>bold</b> & brave start"),
  seg(2, 4, "overlapping auto line"),
  seg(5, 0, "zero duration"),
  seg(7, 2, "arrow --> inside text"),
  seg(7, 3, "same start second line"),
  seg(3725.25, 2.5, "naïve café 日本語 😀"),
  seg(3730, 0, "last zero"),
];

const EXPECTED_VTT = `WEBVTT

00:00:00.000 --> 00:00:02.000
a &lt;b&gt;bold&lt;/b&gt; &amp; brave start

00:00:02.000 --> 00:00:05.000
overlapping auto line

00:00:05.000 --> 00:00:07.000
zero duration

00:00:07.000 --> 00:00:10.000
arrow --&gt; inside text
same start second line

01:02:05.250 --> 01:02:07.750
naïve café 日本語 😀

01:02:10.000 --> 01:02:11.000
last zero
`;

const EXPECTED_SRT = `1
00:00:00,000 --> 00:00:02,000
a <b>bold</b> & brave start

2
00:00:02,000 --> 00:00:05,000
overlapping auto line

3
00:00:05,000 --> 00:00:07,000
zero duration

4
00:00:07,000 --> 00:00:10,000
arrow -> inside text
same start second line

5
01:02:05,250 --> 01:02:07,750
naïve café 日本語 😀

6
01:02:10,000 --> 01:02:11,000
last zero
`;

/** Start and end seconds of each cue: what every parser must read back. */
const TIMINGS = [
  [0, 2],
  [2, 5],
  [5, 7],
  [7, 10],
  [3725.25, 3727.75],
  [3730, 3731],
];

const EDGE_ID = "edgecases01";
const PLAIN_ID = "plainvideo1";
let root: string;
let server: TestServer;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "formats-"));
  const dir = path.join(root, "current");
  const { manifest } = await buildArtifacts({
    records: [
      makeVideo({ videoId: EDGE_ID, transcripts: [{ languageCode: "en", language: "English", isGenerated: true, segments: EDGES }] }),
      makeVideo({ videoId: PLAIN_ID, transcripts: [{ languageCode: "pt-BR", language: "Portuguese (Brazil)", isGenerated: false, segments: [seg(1, 2, "olá mundo")] }] }),
    ],
    outDir: dir,
    dataset: "test",
  });
  server = await startTestServer({ artifacts: { dir, manifest, cleanup: () => {} } });
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

/** The raw text of a response and its headers. */
async function fetchText(pathAndQuery: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${server.baseUrl}${pathAndQuery}`, { headers: { "X-API-Key": server.keys.pro, ...headers } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("the served formats", () => {
  it("format=vtt is WebVTT with escaped text, no overlapping cues, the right type and file name", async () => {
    const res = await fetchText(`/v1/transcript/${EDGE_ID}?format=vtt`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(EXPECTED_VTT);
    expect(res.headers.get("content-type")).toBe("text/vtt; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${EDGE_ID}.en.vtt"`);
    expect(res.headers.get("vary")).toBe("Accept, Accept-Encoding");
    expect(res.headers.get("cache-control")).toBe("private, max-age=300");
  });

  it("format=srt is SubRip numbered from 1 with comma milliseconds and a blank line between cues", async () => {
    const res = await fetchText(`/v1/transcript/${EDGE_ID}?format=srt`);
    expect(res.text).toBe(EXPECTED_SRT);
    expect(res.headers.get("content-type")).toBe("application/x-subrip; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${EDGE_ID}.en.srt"`);
  });

  it("format=text is the segments' text, one a line", async () => {
    const res = await fetchText(`/v1/transcript/${EDGE_ID}?format=text`);
    expect(res.text).toBe(EDGES.map((s) => `${s.text}\n`).join(""));
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${EDGE_ID}.en.txt"`);
    const other = await fetchText(`/v1/transcript/${PLAIN_ID}?lang=pt-br&format=text`);
    expect(other.text).toBe("olá mundo\n");
    expect(other.headers.get("content-disposition")).toBe(`attachment; filename="${PLAIN_ID}.pt-BR.txt"`);
  });

  it("gives each representation its own ETag, answers If-None-Match with 304, and serves a cached one unchanged", async () => {
    const etags = new Set<string>();
    for (const format of ["json", "text", "srt", "vtt"]) {
      const first = await fetchText(`/v1/transcript/${EDGE_ID}?format=${format}`);
      const again = await fetchText(`/v1/transcript/${EDGE_ID}?format=${format}`);
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^W\/"/);
      expect(again.headers.get("etag")).toBe(etag);
      if (format !== "json") expect(again.text).toBe(first.text);
      etags.add(etag);
      const cached = await fetchText(`/v1/transcript/${EDGE_ID}?format=${format}`, { "If-None-Match": etag });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe("");
      expect(cached.headers.get("vary")).toContain("Accept");
    }
    expect(etags.size).toBe(4);
  });
});

describe("choosing the format", () => {
  const cases: [string | undefined, string, string][] = [
    [undefined, "", "application/json; charset=utf-8"],
    ["*/*", "", "application/json; charset=utf-8"],
    ["application/json", "", "application/json; charset=utf-8"],
    ["text/vtt", "", "text/vtt; charset=utf-8"],
    ["application/x-subrip", "", "application/x-subrip; charset=utf-8"],
    ["text/plain", "", "text/plain; charset=utf-8"],
    ["text/*", "", "text/plain; charset=utf-8"],
    ["text/vtt;q=0.5, application/x-subrip", "", "application/x-subrip; charset=utf-8"],
    ["application/json;q=0.1, text/*;q=0.9, text/plain;q=0", "", "text/vtt; charset=utf-8"],
    ["text/html, */*;q=0.8", "", "application/json; charset=utf-8"],
    ["text/vtt", "format=srt", "application/x-subrip; charset=utf-8"],
    ["text/vtt", "format=json", "application/json; charset=utf-8"],
    ["image/png", "format=text", "text/plain; charset=utf-8"],
    // Unreadable ranges are skipped; a header with none left says nothing.
    ["nonsense, text/vtt;q=2", "", "application/json; charset=utf-8"],
    ["TEXT/VTT; charset=utf-8", "", "text/vtt; charset=utf-8"],
  ];
  it.each(cases)("Accept %s with %s gives %s", async (accept, query, contentType) => {
    const res = await fetchText(`/v1/transcript/${EDGE_ID}?${query}`, accept === undefined ? {} : { Accept: accept });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(contentType);
  });

  it("answers 406 when Accept takes none of the formats, and 400 for an unknown format", async () => {
    for (const accept of ["image/png", "text/html", "application/json;q=0, text/*;q=0"]) {
      expectProblem(await call(server.baseUrl, `/v1/transcript/${EDGE_ID}`, { key: server.keys.pro, headers: { Accept: accept } }), 406, "not_acceptable");
    }
    const unknown = await call(server.baseUrl, `/v1/transcript/${EDGE_ID}?format=docx`, { key: server.keys.pro });
    expectProblem(unknown, 400, "invalid_parameter");
    expect(unknown.body.errors).toEqual([{ param: "format", message: "must be one of json, text, srt, vtt" }]);
  });

  it("answers misses with the same JSON problems whatever the format", async () => {
    for (const headers of [{ Accept: "text/vtt" }, {}] as Record<string, string>[]) {
      expectProblem(await call(server.baseUrl, "/v1/transcript/unknown0001?format=srt", { key: server.keys.pro, headers }), 404, "video_not_found");
    }
    expectProblem(await call(server.baseUrl, `/v1/transcript/${EDGE_ID}?lang=de&format=vtt`, { key: server.keys.pro }), 404, "language_not_available");
  });

  it("refuses q with a subtitle format, and keeps the bulk route JSON", async () => {
    const res = await call(server.baseUrl, `/v1/transcript/${EDGE_ID}?format=vtt&q=zero`, { key: server.keys.pro });
    expectProblem(res, 400, "invalid_parameter");
    expect(res.body.errors).toEqual([{ param: "q", message: "applies to the json format only" }]);
    const bulk = await fetch(`${server.baseUrl}/v1/transcripts/bulk`, {
      method: "POST",
      headers: { "X-API-Key": server.keys.pro, "Content-Type": "application/json", Accept: "text/vtt" },
      body: JSON.stringify({ videoIds: [EDGE_ID], fetchMissing: false }),
    });
    expect(bulk.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(((await bulk.json()) as { found: number }).found).toBe(1);
    expect((await postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.pro, { videoIds: [EDGE_ID] })).status).toBe(200);
  });
});

describe("q marks the matching segments", () => {
  it("lists the indexes of the segments where a match begins: words, phrases across segments, several words", async () => {
    const matches = async (q: string) => (await call(server.baseUrl, `/v1/transcript/${EDGE_ID}?q=${encodeURIComponent(q)}`, { key: server.keys.pro })).body.matches;
    expect(await matches("zero")).toEqual([2, 6]);
    expect(await matches("line")).toEqual([1, 4]);
    // "start overlapping" runs from the end of segment 0 into segment 1.
    expect(await matches('"start overlapping"')).toEqual([0]);
    expect(await matches("café bold")).toEqual([0, 5]);
    expect(await matches("nothing")).toEqual([]);
  });

  it("keeps the JSON body otherwise the same, with an ETag of its own", async () => {
    const plain = await call(server.baseUrl, `/v1/transcript/${EDGE_ID}`, { key: server.keys.pro });
    const marked = await call(server.baseUrl, `/v1/transcript/${EDGE_ID}?q=zero`, { key: server.keys.pro });
    const { timing: _a, ...plainRest } = plain.body;
    const { timing: _b, matches, ...markedRest } = marked.body;
    expect(markedRest).toEqual(plainRest);
    expect(matches).toEqual([2, 6]);
    expect(marked.headers.get("etag")).not.toBe(plain.headers.get("etag"));
    expect(plain.body.matches).toBeUndefined();
  });
});

describe("independent parsers read back what is served", () => {
  it("the W3C WebVTT parser reads the .vtt without an error, with every cue's timing and text", async () => {
    const { text } = await fetchText(`/v1/transcript/${EDGE_ID}?format=vtt`);
    // The package's full entity table: its built-in default lacks the `;` forms (it reads `&lt;` as `<;`).
    const entities = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("webvtt-parser/html-entities.json"), "utf8")) as Record<`&${string}`, string>;
    const parsed = new WebVTTParser(entities).parse(text, "subtitles");
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues.map((c) => [c.startTime, c.endTime])).toEqual(TIMINGS);
    const texts = parsed.cues.map((c) => plainText(c.tree));
    expect(texts[0]).toBe("a <b>bold</b> & brave start");
    expect(texts[3]).toBe("arrow --> inside text\nsame start second line");
    expect(texts[4]).toBe("naïve café 日本語 😀");
  });

  const ffmpeg = spawnSync("ffmpeg", ["-version"]).status === 0;
  if (!ffmpeg) console.log("skipped: ffmpeg checks of the .srt and .vtt (ffmpeg is not installed; .ci/run installs it)");
  it.skipIf(!ffmpeg)("ffmpeg reads the .srt and the .vtt with the same cues and timings", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "formats-ffmpeg-"));
    try {
      for (const format of ["srt", "vtt"]) {
        const input = path.join(dir, `in.${format}`);
        writeFileSync(input, (await fetchText(`/v1/transcript/${EDGE_ID}?format=${format}`)).text);
        const output = path.join(dir, `out-${format}.srt`);
        // -v error: any complaint about the input fails the check below.
        const stderr = execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-i", input, "-f", "srt", output], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
        expect(stderr).toBe("");
        const cues = readFileSync(output, "utf8").trim().split(/\n\n+/);
        expect(cues.map((cue) => srtTimings(cue.split("\n")[1]!))).toEqual(TIMINGS);
        expect(cues.map((cue) => cue.split("\n")[0])).toEqual(TIMINGS.map((_, i) => String(i + 1)));
        expect(cues[4]!.split("\n").slice(2).join("\n")).toBe("naïve café 日本語 😀");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("segments to cues", () => {
  const sub = (offset: string, duration: string, text: string) => ({ offset, duration, text });

  it("keeps blank lines out of a cue and trims lines, in every format", () => {
    const subs = [sub("0", "2", "first line\n\n\nsecond line  \r\n  third"), sub("2", "1", " \n ")];
    expect(cuesOf(subs)).toEqual([{ startMs: 0, endMs: 2000, lines: ["first line", "second line", "third"] }]);
    expect(toVtt(subs)).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nfirst line\nsecond line\nthird\n");
    expect(toSrt(subs)).toBe("1\n00:00:00,000 --> 00:00:02,000\nfirst line\nsecond line\nthird\n");
    expect(toText(subs)).toBe("first line second line third\n");
  });

  it("never writes --> into SubRip text, however many dashes", () => {
    expect(toSrt([sub("0", "1", "a ---> b -- > c ----> d")])).not.toMatch(/-->.*-->/);
    expect(toSrt([sub("0", "1", "a ---> b")]).split("\n")[2]).toBe("a -> b");
  });

  it("orders segments given out of order, and lets hours grow past 99", () => {
    const cues = cuesOf([sub("10", "5", "later"), sub("1", "20", "earlier")]);
    expect(cues).toEqual([
      { startMs: 1000, endMs: 10_000, lines: ["earlier"] },
      { startMs: 10_000, endMs: 15_000, lines: ["later"] },
    ]);
    expect(toVtt([sub("360000.5", "1", "x")])).toContain("100:00:00.500 --> 100:00:01.500");
  });
});

/** The text of a parsed WebVTT cue (entities decoded, tags dropped). */
function plainText(node: { value?: string; children?: unknown[] }): string {
  if (node.value !== undefined && node.children === undefined) return node.value;
  return (node.children ?? []).map((child) => plainText(child as { value?: string; children?: unknown[] })).join("");
}

function srtTimings(line: string): number[] {
  return line.split(" --> ").map((t) => {
    const [h, m, s] = t.split(":");
    return Number(h) * 3600 + Number(m) * 60 + Number(s!.replace(",", "."));
  });
}
