/**
 * POST /mcp spoken to by the SDK's own Client over Streamable HTTP, against a
 * real server on port 0 over a real artifact set: the six tools with their
 * schemas, each tool's answers and failures (the REST codes, as isError
 * results), a long transcript read in pieces, links in every form; and over
 * raw HTTP the rules shared with REST: keys (401/403), the one rate-limit
 * window, the Origin rule, the body cap, and what stateless mode refuses.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { count, plainSnippet } from "../../server/mcp/readable.js";
import { CHANNEL_A, CHANNEL_UNKNOWN, IDS, fixtureRecords } from "./helpers/fixture-records.js";
import { roomInThisMinute } from "../helpers/rate-window.js";
import { call, expectProblem, postJson } from "./helpers/http.js";
import { createStandInSource, type StandInSource } from "./helpers/stand-in-source.js";
import { startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

const LONG_ID = "longtalk001";
/** Lines with accents, a tab and characters outside the BMP, so a cut inside a surrogate pair would show. */
const LONG_LINES = Array.from({ length: 800 }, (_, i) => `line ${i} of the long talk: café 🌊 naïve 𝒳 river ${i % 7 === 0 ? "🎉🎉" : "and sea"}`);

function longVideo(): VideoRecord {
  return {
    videoId: LONG_ID,
    channelId: CHANNEL_A,
    channelTitle: "Alpha Lectures",
    title: "A very long talk",
    viewCount: 12,
    publishedAt: "2022-02-02T00:00:00Z",
    thumbnail: `https://i.ytimg.com/vi/${LONG_ID}/hqdefault.jpg`,
    lengthSeconds: 1800,
    transcripts: [
      { language: "English", languageCode: "en", isGenerated: false, segments: LONG_LINES.map((text, i) => ({ start: i * 3, duration: 3, text })) },
    ],
  };
}

let artifacts: Artifacts;
let server: TestServer;
/** RATE_LIMIT_PER_MINUTE=6, for the shared window. */
let limited: TestServer;
/** With an Origin allowlist (CORS_ORIGINS). */
let withOrigins: TestServer;
let source: StandInSource;
let client: Client;

const ALLOWED_ORIGIN = "https://agent.example.com";

beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), "mcp-artifacts-"));
  const dir = path.join(root, "current");
  const { manifest } = await buildArtifacts({ records: [...fixtureRecords(), longVideo()], outDir: dir, dataset: "test" });
  artifacts = { dir, manifest, cleanup: () => rmSync(root, { recursive: true, force: true }) };
  source = createStandInSource();
  [server, limited, withOrigins] = await Promise.all([
    startTestServer({ artifacts, transcriptSource: source, env: { RATE_LIMIT_PER_MINUTE: "100000" } }),
    startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "6" } }),
    startTestServer({ artifacts, configure: (config) => ({ ...config, corsOrigins: [ALLOWED_ORIGIN] }) }),
  ]);
  client = await connect(server, server.keys.pro);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await Promise.all([server?.close(), limited?.close(), withOrigins?.close()]);
  artifacts?.cleanup();
});

async function connect(s: TestServer, key: string, headers: Record<string, string> = { "X-API-Key": key }): Promise<Client> {
  const c = new Client({ name: "mcp-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${s.baseUrl}/mcp`), { requestInit: { headers } }));
  await c.listTools(); // the client checks structuredContent against the output schemas it listed
  return c;
}

const tool = (name: string, args: Record<string, unknown> = {}, c: Client = client) => c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The problem document of a tool error. */
function problemOf(result: CallToolResult): Record<string, any> {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const content = result.content[0];
  expect(content?.type).toBe("text");
  return JSON.parse((content as { text: string }).text) as Record<string, any>;
}

function answerOf(result: CallToolResult): Record<string, any> {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  expect(result.content[0]?.type).toBe("text");
  return result.structuredContent as Record<string, any>;
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** One JSON-RPC message over raw HTTP, as a client without the SDK sends it. */
function rpc(s: TestServer, message: unknown, headers: Record<string, string> = {}) {
  return call(s.baseUrl, "/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: typeof message === "string" ? message : JSON.stringify(message),
  });
}
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

describe("tools/list", () => {
  it("gives the six tools with input and output schemas, titles and annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_transcripts", "get_transcript", "get_transcripts", "list_channels", "list_channel_videos", "get_stats"]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description?.length).toBeGreaterThan(40);
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(t.title).toBe(t.annotations?.title);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.get_transcript!.annotations?.openWorldHint).toBe(true);
    expect(byName.get_transcripts!.annotations?.openWorldHint).toBe(true);
    expect(byName.search_transcripts!.annotations?.openWorldHint).toBe(false);
    expect(byName.search_transcripts!.inputSchema).toMatchObject({
      required: ["q"],
      additionalProperties: false,
      properties: { q: { type: "string", maxLength: 500 }, limit: { type: "integer", minimum: 1, default: 20 }, offset: { maximum: 10000 }, minViews: { type: "integer" } },
    });
    expect(byName.get_transcript!.inputSchema).toMatchObject({
      required: ["videoId"],
      properties: { format: { enum: expect.arrayContaining(["text", "json"]), default: "text" }, maxChars: { type: "integer" }, cursor: { type: "string" } },
    });
    expect(byName.get_transcripts!.inputSchema).toMatchObject({ required: ["videoIds"], properties: { videoIds: { type: "array" }, fetchMissing: { type: "boolean" } } });
    expect(byName.list_channel_videos!.inputSchema).toMatchObject({ required: ["channelId"] });
    expect(byName.list_channels!.inputSchema).toMatchObject({ additionalProperties: false, properties: { limit: { type: "integer" }, offset: { type: "integer" } } });
    expect(byName.list_channels!.annotations?.openWorldHint).toBe(false);
    expect(byName.get_stats!.outputSchema).toMatchObject({ properties: { videos: { type: "integer" }, channels: { type: "integer" } } });
  });

  it("initialize names the server, its tools capability and instructions", () => {
    expect(client.getServerVersion()).toMatchObject({ name: "transcript-service" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain("search_transcripts");
  });
});

describe("search_transcripts", () => {
  it("answers what GET /v1/search answers, with a readable text beside it", async () => {
    const result = await tool("search_transcripts", { q: "river", limit: 2, channel: CHANNEL_A });
    const rest = await call(server.baseUrl, `/v1/search?q=river&limit=2&channel=${CHANNEL_A}`, { key: server.keys.pro });
    expect(answerOf(result)).toEqual(rest.body);
    expect(rest.body.results).toHaveLength(2);
    const text = textOf(result);
    expect(text).toMatch(/^Query: river — \d+ matching transcripts; hits 1–2 \(more: offset 2\)\./);
    expect(text).toContain(`https://www.youtube.com/watch?v=${rest.body.results[0].videoId}`);
    // The snippet as plain text: matches in bold, no markup.
    expect(text).toContain("**river**");
    expect(text).not.toContain("<mark>");
  });

  it("writes counts with thousands separators, as en-US does", () => {
    for (const n of [0, 7, 999, 1000, 119_274, 1_234_567, -45_000, 12.5]) expect(count(n)).toBe(n.toLocaleString("en-US"));
  });

  it("turns snippets into plain text: markup decoded once, matches in bold", () => {
    expect(plainSnippet("…a <mark>river</mark> &amp; &lt;b&gt; &quot;x&quot; it&#39;s…")).toBe(`…a **river** & <b> "x" it's…`);
    // The escaped text of a literal "&lt;" decodes to "&lt;", not to "<".
    expect(plainSnippet("&amp;lt;mark&amp;gt;")).toBe("&lt;mark&gt;");
  });

  it("pages with offset and filters by minViews like REST", async () => {
    const page = answerOf(await tool("search_transcripts", { q: "river", limit: 1, offset: 1, minViews: 5100 }));
    const rest = await call(server.baseUrl, "/v1/search?q=river&limit=1&offset=1&minViews=5100", { key: server.keys.pro });
    expect(page).toEqual(rest.body);
    expect(page.pagination).toMatchObject({ limit: 1, offset: 1, hasMore: true });
  });

  it("refuses bad arguments with invalid_parameter naming each, as REST does", async () => {
    const problem = problemOf(await tool("search_transcripts", { q: "   ", limit: 0, offset: 20_000, colour: "red" }));
    expect(problem).toMatchObject({ status: 400, code: "invalid_parameter", type: "urn:transcript-service:problem:invalid_parameter" });
    expect(problem.errors.map((e: { param: string }) => e.param).sort()).toEqual(["colour", "limit", "offset", "q"]);
    expect(problem.requestId).toEqual(expect.any(String));
    expect(problemOf(await tool("search_transcripts", {})).errors).toEqual([{ param: "q", message: expect.any(String) }]);
  });
});

describe("get_transcript", () => {
  it("gives a stored transcript as text, one segment a line, with the video's facts", async () => {
    const result = await tool("get_transcript", { videoId: IDS.chapters });
    const answer = answerOf(result);
    expect(answer).toMatchObject({
      videoId: IDS.chapters,
      title: "Energy in plants",
      channelTitle: "Beta Wissenschaft",
      url: `https://www.youtube.com/watch?v=${IDS.chapters}`,
      languageCode: "en",
      isGenerated: false,
      cached: true,
      format: "text",
      content: "photosynthesis turns light into chemical\nenergy inside green plants\n",
      piece: { unit: "characters", start: 0, end: 68, total: 68 },
    });
    expect(answer.nextCursor).toBeUndefined();
    expect(textOf(result)).toContain("photosynthesis turns light into chemical\nenergy inside green plants");
  });

  it("format srt and vtt give exactly the bodies of GET /v1/transcript?format=", async () => {
    for (const format of ["srt", "vtt", "text"] as const) {
      const answer = answerOf(await tool("get_transcript", { videoId: IDS.chapters, lang: "es", format }));
      const rest = await fetch(`${server.baseUrl}/v1/transcript/${IDS.chapters}?lang=es&format=${format}`, { headers: { "X-API-Key": server.keys.pro } });
      expect(rest.status).toBe(200);
      expect(answer).toMatchObject({ format, content: await rest.text() });
    }
  });

  it("takes lang, and format json gives the timed segments of REST", async () => {
    const answer = answerOf(await tool("get_transcript", { videoId: IDS.chapters, lang: "es", format: "json" }));
    const rest = await call(server.baseUrl, `/v1/transcript/${IDS.chapters}?lang=es`, { key: server.keys.pro });
    expect(answer).toMatchObject({ languageCode: "es", format: "json", piece: { unit: "segments", start: 0, total: rest.body.transcript.subs.length } });
    expect(answer.segments).toEqual(rest.body.transcript.subs);
    expect(answer.content).toBeUndefined();
  });

  it.each([
    [IDS.chapters],
    [`https://www.youtube.com/watch?v=${IDS.chapters}`],
    [`https://www.youtube.com/watch?feature=share&v=${IDS.chapters}&t=42s&list=PL123`],
    [`https://m.youtube.com/watch?v=${IDS.chapters}`],
    [`youtube.com/watch?v=${IDS.chapters}`],
    [`https://youtu.be/${IDS.chapters}?si=abcdef&t=10`],
    [`https://www.youtube.com/shorts/${IDS.chapters}?feature=share`],
    [`https://www.youtube.com/embed/${IDS.chapters}?start=5`],
    [`https://www.youtube.com/live/${IDS.chapters}?si=x`],
    [`https://www.youtube-nocookie.com/embed/${IDS.chapters}`],
    [`  ${IDS.chapters}  `],
  ])("finds the video named as %s", async (videoId) => {
    expect(answerOf(await tool("get_transcript", { videoId })).videoId).toBe(IDS.chapters);
  });

  it.each([["not-an-id"], ["https://vimeo.com/12345678901"], ["https://www.youtube.com/watch?v=short"], ["https://youtu.be/"]])(
    "refuses %s with invalid_video_id",
    async (videoId) => {
      expect(problemOf(await tool("get_transcript", { videoId }))).toMatchObject({ status: 400, code: "invalid_video_id" });
    },
  );

  it("answers the REST codes of a video it cannot give: not found, other languages only, stored without transcript", async () => {
    expect(problemOf(await tool("get_transcript", { videoId: "typed404aaa" }))).toMatchObject({ status: 404, code: "video_not_found" });
    const upstream = problemOf(await tool("get_transcript", { videoId: "upstreamaaa" }));
    expect(upstream).toMatchObject({ status: 502, code: "upstream_unavailable" });
    // A bug in the source is an internal_error result, logged, not a protocol failure or a 500.
    const bug = problemOf(await tool("get_transcript", { videoId: "boomboomaaa" }));
    expect(bug).toMatchObject({ status: 500, code: "internal_error" });
    expect(JSON.stringify(bug)).not.toContain("kaboom");
    expect(server.logs.some((line) => line.includes('"tool failed"') && line.includes(bug.requestId))).toBe(true);
  });

  it("refuses a window that ends before it starts, and unknown arguments", async () => {
    const problem = problemOf(await tool("get_transcript", { videoId: LONG_ID, startSeconds: 60, endSeconds: 30 }));
    expect(problem).toMatchObject({ code: "invalid_parameter", errors: [{ param: "endSeconds", message: "must be greater than startSeconds" }] });
    expect(problemOf(await tool("get_transcript", { videoId: LONG_ID, maxChars: 10 })).errors).toEqual([{ param: "maxChars", message: "must be at least 200" }]);
    expect(problemOf(await tool("get_transcript", { videoId: LONG_ID, format: "pdf" })).errors[0].param).toBe("format");
  });

  it("takes track: generated gives the auto-generated track exactly as REST gives it, in every format", async () => {
    for (const format of ["srt", "vtt", "text"] as const) {
      const answer = answerOf(await tool("get_transcript", { videoId: IDS.chapters, track: "generated", format }));
      const rest = await fetch(`${server.baseUrl}/v1/transcript/${IDS.chapters}?track=generated&format=${format}`, { headers: { "X-API-Key": server.keys.pro } });
      expect(rest.status).toBe(200);
      expect(answer).toMatchObject({ format, isGenerated: true, language: "English (auto-generated)", content: await rest.text() });
    }
    const json = answerOf(await tool("get_transcript", { videoId: IDS.chapters, track: "generated", format: "json" }));
    const rest = await call(server.baseUrl, `/v1/transcript/${IDS.chapters}?track=generated`, { key: server.keys.pro });
    expect(json.segments).toEqual(rest.body.transcript.subs);
    expect(answerOf(await tool("get_transcript", { videoId: IDS.chapters, track: "manual" }))).toMatchObject({ isGenerated: false });
    expect(problemOf(await tool("get_transcript", { videoId: IDS.chapters, track: "asr" })).errors).toEqual([{ param: "track", message: "must be one of any, manual, generated" }]);
  });

  it("answers track_not_available, as REST does, for a track the video lacks in the language", async () => {
    // Without a transcript source: storage's own answer.
    const offline = await connect(withOrigins, withOrigins.keys.pro);
    try {
      const problem = problemOf(await tool("get_transcript", { videoId: IDS.markup, track: "generated" }, offline));
      const rest = await call(withOrigins.baseUrl, `/v1/transcript/${IDS.markup}?track=generated`, { key: withOrigins.keys.pro });
      expectProblem(rest, 404, "track_not_available");
      expect(problem).toMatchObject({ status: 404, code: "track_not_available", detail: rest.body.detail });
    } finally {
      await offline.close();
    }
  });

  it("cuts a time window: the segments overlapping [startSeconds, endSeconds)", async () => {
    const answer = answerOf(await tool("get_transcript", { videoId: LONG_ID, startSeconds: 31, endSeconds: 45, format: "json" }));
    // Segments start every 3 s and last 3 s: 30–33 is still running at 31; 42–45 is the last to start before 45.
    expect(answer.segments.map((s: { offset: string }) => s.offset)).toEqual(["30", "33", "36", "39", "42"]);
    const text = answerOf(await tool("get_transcript", { videoId: LONG_ID, startSeconds: 31, endSeconds: 45 }));
    expect(text.content).toBe(`${LONG_LINES.slice(10, 15).join("\n")}\n`);
  });
});

describe("a long transcript read in pieces", () => {
  async function readAll(args: Record<string, unknown>): Promise<{ pieces: Record<string, any>[] }> {
    const pieces: Record<string, any>[] = [];
    let cursor: string | undefined;
    do {
      const answer = answerOf(await tool("get_transcript", { videoId: LONG_ID, ...args, ...(cursor === undefined ? {} : { cursor }) }));
      pieces.push(answer);
      cursor = answer.nextCursor as string | undefined;
      expect(pieces.length).toBeLessThan(500);
    } while (cursor !== undefined);
    return { pieces };
  }

  it.each([
    [200, { startSeconds: 0, endSeconds: 450 }, LONG_LINES.slice(0, 150)],
    [777, {}, LONG_LINES],
    [5000, {}, LONG_LINES],
  ])("text in pieces of at most %i characters joins exactly into the whole (window %j)", async (maxChars, window, lines) => {
    const whole = answerOf(await tool("get_transcript", { videoId: LONG_ID, maxChars: 500_000, ...window }));
    expect(whole.nextCursor).toBeUndefined();
    expect(whole.content).toBe(`${lines.join("\n")}\n`);
    const { pieces } = await readAll({ maxChars, ...window });
    expect(pieces.length).toBeGreaterThan(whole.content.length / maxChars - 1);
    expect(pieces.map((p) => p.content).join("")).toBe(whole.content);
    let at = 0;
    for (const piece of pieces) {
      expect(piece.content.length).toBeLessThanOrEqual(maxChars);
      expect(piece.piece).toEqual({ unit: "characters", start: at, end: at + piece.content.length, total: whole.content.length });
      at = piece.piece.end;
      // No piece starts with half of a surrogate pair.
      expect(piece.content.charCodeAt(0) >= 0xdc00 && piece.content.charCodeAt(0) <= 0xdfff).toBe(false);
    }
    // Pieces end at line breaks when one is in reach.
    expect(pieces.slice(0, -1).every((p) => p.content.endsWith("\n"))).toBe(true);
  });

  it("json in pieces of whole segments joins into every segment", async () => {
    const { pieces } = await readAll({ format: "json", maxChars: 1000 });
    expect(pieces.length).toBeGreaterThan(10);
    const segments = pieces.flatMap((p) => p.segments);
    expect(segments.map((s) => s.text)).toEqual(LONG_LINES);
    expect(pieces.every((p) => JSON.stringify(p.segments).length <= 1000)).toBe(true);
  });

  it("the default piece is at most 40,000 characters, and the text says how to go on", async () => {
    const total = `${LONG_LINES.join("\n")}\n`.length;
    expect(total).toBeGreaterThan(40_000);
    const first = await tool("get_transcript", { videoId: LONG_ID });
    const answer = answerOf(first);
    expect(answer.piece.end).toBeLessThanOrEqual(40_000);
    expect(answer.piece.end).toBeGreaterThan(39_000);
    expect(textOf(first)).toContain(`cursor "${answer.nextCursor}"`);
    const rest = answerOf(await tool("get_transcript", { videoId: LONG_ID, cursor: answer.nextCursor }));
    expect(rest.nextCursor).toBeUndefined();
    expect(answer.content + rest.content).toBe(`${LONG_LINES.join("\n")}\n`);
  });

  it("refuses a cursor of another document (format, window, video) or a forged one", async () => {
    const { nextCursor } = answerOf(await tool("get_transcript", { videoId: LONG_ID, maxChars: 300 }));
    expect(nextCursor).toEqual(expect.any(String));
    for (const args of [{ format: "json" }, { startSeconds: 3 }, { lang: "de" }]) {
      const result = await tool("get_transcript", { videoId: LONG_ID, cursor: nextCursor, ...args });
      if (args.lang === "de") {
        // Not stored in German: the transcript's own answer comes first.
        expect(problemOf(result).code).not.toBe("internal_error");
        continue;
      }
      expect(problemOf(result)).toMatchObject({ code: "invalid_parameter", errors: [{ param: "cursor" }] });
    }
    expect(problemOf(await tool("get_transcript", { videoId: IDS.chapters, cursor: nextCursor })).errors[0].param).toBe("cursor");
    for (const cursor of ["garbage", Buffer.from("99999.AAAAAAAAAAAAAAAA").toString("base64url"), ""]) {
      expect(problemOf(await tool("get_transcript", { videoId: LONG_ID, cursor })).code).toBe("invalid_parameter");
    }
  });
});

describe("get_transcripts", () => {
  it("answers what POST /v1/transcripts/bulk answers, links accepted, and the fetched count", async () => {
    source.calls.length = 0;
    const result = await tool("get_transcripts", { videoIds: [IDS.markup, `https://youtu.be/${IDS.chapters}`, "livebulk001", IDS.markup], fetchMissing: true });
    const answer = answerOf(result);
    expect(answer).toMatchObject({ requested: 3, found: 3, fetched: 1, errors: [] });
    expect(answer.transcripts.map((t: { videoId: string; cached: boolean }) => [t.videoId, t.cached])).toEqual([
      [IDS.markup, true],
      [IDS.chapters, true],
      ["livebulk001", false],
    ]);
    expect(source.calls).toEqual(["livebulk001"]);
    expect(textOf(result)).toContain("3 of 3 transcripts (1 fetched from YouTube now)");
    const rest = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.pro, { videoIds: [IDS.markup, IDS.silent, IDS.unknown], fetchMissing: false });
    const mcp = answerOf(await tool("get_transcripts", { videoIds: [IDS.markup, IDS.silent, IDS.unknown], fetchMissing: false }));
    expect({ ...mcp, timing: null }).toEqual({ ...rest.body, timing: null });
    expect(mcp.errors.map((e: { code: string }) => e.code)).toEqual(["transcript_not_found", "not_fetched"]);
  });

  it("takes track as POST /v1/transcripts/bulk does", async () => {
    const body = { videoIds: [IDS.chapters, IDS.markup], fetchMissing: false, track: "generated" };
    const rest = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.pro, body);
    const mcp = answerOf(await tool("get_transcripts", body));
    expect({ ...mcp, timing: null }).toEqual({ ...rest.body, timing: null });
    expect(mcp.transcripts.map((t: { transcript: { isGenerated: boolean } }) => t.transcript.isGenerated)).toEqual([true]);
    expect(mcp.errors.map((e: { code: string }) => e.code)).toEqual(["track_not_available"]);
  });

  it("refuses more than 100 ids with too_many_video_ids, bad ids with invalid_parameter, and a free key with plan_required", async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `bulkid${String(i).padStart(5, "0")}`);
    expect(problemOf(await tool("get_transcripts", { videoIds: ids }))).toMatchObject({ status: 400, code: "too_many_video_ids" });
    expect(problemOf(await tool("get_transcripts", { videoIds: ["bad"] }))).toMatchObject({ code: "invalid_parameter", errors: [{ param: "videoIds[0]" }] });
    expect(problemOf(await tool("get_transcripts", { videoIds: [] }))).toMatchObject({ code: "invalid_parameter" });
    const free = await connect(server, server.keys.free);
    try {
      expect(problemOf(await tool("get_transcripts", { videoIds: [IDS.markup] }, free))).toMatchObject({ status: 403, code: "plan_required" });
      // Everything else is open to free.
      expect(answerOf(await tool("get_stats", {}, free)).videos).toBeGreaterThan(0);
    } finally {
      await free.close();
    }
  });
});

describe("list_channels", () => {
  it("answers what GET /v1/channels answers, page by page, with a readable text beside it", async () => {
    for (const [args, query] of [
      [{}, ""],
      [{ limit: 1 }, "?limit=1"],
      [{ limit: 1, offset: 1 }, "?limit=1&offset=1"],
    ] as const) {
      const result = await tool("list_channels", args);
      const rest = await call(server.baseUrl, `/v1/channels${query}`, { key: server.keys.pro });
      expect(rest.status).toBe(200);
      expect(answerOf(result)).toEqual(rest.body);
    }
    const first = await tool("list_channels", { limit: 1 });
    const channel = answerOf(first).channels[0];
    expect(channel.channelId).toBe(CHANNEL_A);
    const text = textOf(first);
    expect(text).toMatch(/^Channels 1–1 of 2, most transcripts first\./);
    expect(text).toContain(`${channel.title} (${CHANNEL_A}): ${count(channel.transcriptCount)} transcripts, ${count(channel.videoCount)} videos`);
    expect(text).toContain("More: offset 1.");
  });

  it("refuses bad paging and unknown arguments with invalid_parameter, as REST does", async () => {
    const problem = problemOf(await tool("list_channels", { limit: 0, offset: -1 }));
    expect(problem).toMatchObject({ status: 400, code: "invalid_parameter" });
    expect(problem.errors.map((e: { param: string }) => e.param).sort()).toEqual(["limit", "offset"]);
    expect(problemOf(await tool("list_channels", { sort: "title" }))).toMatchObject({ code: "invalid_parameter", errors: [{ param: "sort" }] });
  });
});

describe("list_channel_videos and get_stats", () => {
  it("answer what REST answers", async () => {
    const channel = answerOf(await tool("list_channel_videos", { channelId: CHANNEL_A, limit: 3, offset: 1 }));
    const rest = await call(server.baseUrl, `/v1/channels/${CHANNEL_A}/videos?limit=3&offset=1`, { key: server.keys.pro });
    expect(channel).toEqual(rest.body);
    const stats = await tool("get_stats");
    expect(answerOf(stats)).toEqual((await call(server.baseUrl, "/v1/stats", { key: server.keys.pro })).body);
    expect(textOf(stats)).toMatch(/^\d+ videos in \d+ channels; \d+ transcripts/);
  });

  it("answer channel_not_found and invalid_parameter as REST does", async () => {
    expect(problemOf(await tool("list_channel_videos", { channelId: CHANNEL_UNKNOWN }))).toMatchObject({ status: 404, code: "channel_not_found" });
    expect(problemOf(await tool("list_channel_videos", { channelId: "UCshort" }))).toMatchObject({ code: "invalid_parameter", errors: [{ param: "channelId" }] });
    expect(problemOf(await tool("get_stats", { verbose: true }))).toMatchObject({ code: "invalid_parameter" });
  });
});

describe("the protocol around the tools", () => {
  it("an unknown tool is a protocol error (invalid params), not a tool result", async () => {
    const res = await rpc(server, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "drop_tables", arguments: {} } }, { "X-API-Key": server.keys.pro });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32602 } });
    expect(JSON.stringify(res.body)).not.toContain("drop_tables");
  });

  it("works without a session: tools/call alone, Bearer key, JSON answer with the REST headers", async () => {
    const res = await rpc(
      server,
      { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "get_stats", arguments: {} } },
      { Authorization: `Bearer ${server.keys.pro}` },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("x-ratelimit-limit")).toBe("100000");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.body.result.structuredContent.videos).toBeGreaterThan(0);
  });

  it("a notification gets 202 without a body", async () => {
    const res = await rpc(server, { jsonrpc: "2.0", method: "notifications/initialized" }, { "X-API-Key": server.keys.pro });
    expect(res.status).toBe(202);
    expect(res.body).toBeUndefined();
  });

  it("GET and DELETE get 405 with Allow: POST (no sessions, no server-sent stream)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await call(server.baseUrl, "/mcp", { method, key: server.keys.pro, headers: { Accept: "text/event-stream" } });
      expectProblem(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("malformed JSON is JSON-RPC's parse error, a batch is refused, a body over MAX_BODY_BYTES is 413 as in REST", async () => {
    const key = { "X-API-Key": server.keys.pro };
    const parse = await rpc(server, "{not json", key);
    expect(parse.status).toBe(400);
    expect(parse.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    const batch = await rpc(server, [LIST, { ...LIST, id: 2 }], key);
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({ error: { code: -32600 } });
    const big = await rpc(server, { ...LIST, params: { pad: "x".repeat(server.config.maxBodyBytes) } }, key);
    expectProblem(big, 413, "payload_too_large");
  });

  it("the transport's own checks answer as the SDK does: Accept without text/event-stream is 406", async () => {
    const res = await rpc(server, LIST, { "X-API-Key": server.keys.pro, Accept: "application/json" });
    expect(res.status).toBe(406);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
  });
});

describe("keys, limits and origins: the REST rules", () => {
  it("no key or a bad key is 401 before any JSON-RPC is read; an expired key is 403", async () => {
    const missing = await rpc(server, "this is not even JSON");
    expectProblem(missing, 401, "missing_api_key");
    expect(missing.headers.get("www-authenticate")).toContain("Bearer");
    expectProblem(await rpc(server, LIST, { "X-API-Key": "tsk_nope" }), 401, "invalid_api_key");
    expectProblem(await rpc(server, LIST, { Authorization: "Bearer tsk_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }), 401, "invalid_api_key");
    expectProblem(await rpc(server, LIST, { Authorization: `Basic ${server.keys.pro}` }), 401, "missing_api_key");
    expectProblem(await rpc(server, LIST, { "X-API-Key": server.keys.revoked }), 401, "invalid_api_key");
    expectProblem(await rpc(server, LIST, { Authorization: `Bearer ${server.keys.expired}` }), 403, "subscription_expired");
    // The SDK's client sees the 401 as a failed connection.
    await expect(connect(server, "", {})).rejects.toThrow(/401/);
  });

  it("REST takes the same Bearer key, and two different keys are refused on both", async () => {
    const res = await call(server.baseUrl, "/v1/stats", { headers: { Authorization: `Bearer ${server.keys.pro}` } });
    expect(res.status).toBe(200);
    expectProblem(await rpc(server, LIST, { "X-API-Key": server.keys.pro, Authorization: `Bearer ${server.keys.free}` }), 400, "conflicting_api_keys");
  });

  it("MCP and REST requests count in one window per key, with the same headers and 429", async () => {
    // The counts below are of one clock minute: a start near its end would see them restart mid-test.
    await roomInThisMinute();
    const key = limited.keys.pro;
    const rest1 = await call(limited.baseUrl, "/v1/stats", { key });
    expect(rest1.headers.get("x-ratelimit-remaining")).toBe("5");
    const c = await connect(limited, key); // initialize and notifications/initialized: two requests (the GET it tries is a 405, not counted)
    try {
      const mcp = await rpc(limited, LIST, { "X-API-Key": key });
      expect(mcp.status).toBe(200);
      expect(mcp.headers.get("x-ratelimit-remaining")).toBe("1");
      expect(mcp.headers.get("x-ratelimit-limit")).toBe("6");
      expect(Number(mcp.headers.get("x-ratelimit-reset"))).toBe(Number(rest1.headers.get("x-ratelimit-reset")));
      await expect(c.callTool({ name: "get_stats", arguments: {} })).resolves.toMatchObject({ structuredContent: { videos: expect.any(Number) } });
      const refusedMcp = await rpc(limited, LIST, { "X-API-Key": key });
      expectProblem(refusedMcp, 429, "rate_limited");
      expect(Number(refusedMcp.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expectProblem(await call(limited.baseUrl, "/v1/stats", { key }), 429, "rate_limited");
      await expect(c.callTool({ name: "get_stats", arguments: {} })).rejects.toThrow(/429/);
      // Another key has its own window.
      expect((await rpc(limited, LIST, { "X-API-Key": limited.keys.free })).status).toBe(200);
    } finally {
      await c.close();
    }
  });

  it("a request whose Origin is not allowed is 403 before the key is looked at; no Origin (not a browser) passes", async () => {
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1:9"]) {
      const res = await rpc(server, LIST, { "X-API-Key": server.keys.pro, Origin: origin });
      expectProblem(res, 403, "origin_not_allowed");
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    }
    expectProblem(await rpc(server, LIST, { Origin: "https://evil.example" }), 403, "origin_not_allowed");
    expect((await rpc(withOrigins, LIST, { "X-API-Key": withOrigins.keys.pro })).status).toBe(200);
  });

  it("an Origin in CORS_ORIGINS passes; others are still refused", async () => {
    const allowed = await rpc(withOrigins, LIST, { "X-API-Key": withOrigins.keys.pro, Origin: ALLOWED_ORIGIN });
    expect(allowed.status).toBe(200);
    expect(allowed.body.result.tools).toHaveLength(6);
    expectProblem(await rpc(withOrigins, LIST, { "X-API-Key": withOrigins.keys.pro, Origin: "https://agent.example.com.evil.example" }), 403, "origin_not_allowed");
  });
});
