/**
 * The MCP tools live, on a server wired as `npm start` wires it, against the
 * YouTube stand-in: a miss fetched through MCP is fetched once (one
 * single-flight with REST), stored in the live store, and then served with
 * `cached: true` over REST and MCP alike, found by search; YouTube's own
 * refusals are tool errors with the codes REST answers.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, postJson } from "../server/helpers/http.js";
import { fresh } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

let server: LiveServer;
let client: Client;

beforeAll(async () => {
  server = await startLiveServer();
  client = new Client({ name: "mcp-live-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${server.key}` } } }));
  await client.listTools();
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const tool = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const get = (path: string) => call(server.baseUrl, path, { key: server.key });
const playerCalls = (id: string) => server.standin.stats.byVideo[id]?.player ?? 0;

function answerOf(result: CallToolResult): Record<string, any> {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent as Record<string, any>;
}
function problemOf(result: CallToolResult): Record<string, any> {
  expect(result.isError).toBe(true);
  return JSON.parse((result.content[0] as { text: string }).text) as Record<string, any>;
}

describe("a miss fetched through MCP", () => {
  it("is fetched once, stored, and then cached over REST and MCP alike", async () => {
    const first = answerOf(await tool("get_transcript", { videoId: "https://youtu.be/fixtureOKAY?si=share", format: "json" }));
    expect(first).toMatchObject({ videoId: "fixtureOKAY", cached: false, title: "How to bake sourdough at home", languageCode: "en" });
    expect(first.segments).toEqual([
      { text: "Today we're baking sourdough", offset: "0.5", duration: "2.8" },
      { text: "flour, water & salt", offset: "3.3", duration: "3.1" },
      { text: "that's all it takes", offset: "6.9", duration: "0" },
    ]);
    const calls = playerCalls("fixtureOKAY");
    expect(calls).toBeGreaterThan(0);
    const rest = await get("/v1/transcript/fixtureOKAY");
    expect(rest.body).toMatchObject({ cached: true, debug: { method: "storage" } });
    expect(rest.body.transcript.subs).toEqual(first.segments);
    const again = answerOf(await tool("get_transcript", { videoId: "fixtureOKAY" }));
    expect(again).toMatchObject({ cached: true, content: "Today we're baking sourdough\nflour, water & salt\nthat's all it takes\n" });
    expect(playerCalls("fixtureOKAY")).toBe(calls);
  });

  it("and over REST at the same moment share one fetch, and the video is found by search_transcripts", async () => {
    const id = fresh(3).videoId;
    expect(answerOf(await tool("search_transcripts", { q: "quokka3" })).results).toEqual([]);
    const [mcp, rest] = await Promise.all([tool("get_transcript", { videoId: id }), get(`/v1/transcript/${id}`)]);
    expect(answerOf(mcp)).toMatchObject({ videoId: id, content: expect.stringContaining("quokka3") });
    expect(rest.status).toBe(200);
    expect(playerCalls(id)).toBe(1);
    expect(answerOf(await tool("get_transcript", { videoId: id })).cached).toBe(true);
    const search = answerOf(await tool("search_transcripts", { q: "quokka3" }));
    expect(search.results.map((r: { videoId: string }) => r.videoId)).toEqual([id]);
  });

  it("through get_transcripts is fetched, and then cached in a REST bulk request", async () => {
    const id = fresh(4).videoId;
    const mcp = answerOf(await tool("get_transcripts", { videoIds: [`https://www.youtube.com/watch?v=${id}`, "fixtureGONE"] }));
    expect(mcp).toMatchObject({ requested: 2, found: 1, fetched: 1, errors: [{ videoId: "fixtureGONE", code: "video_unavailable" }] });
    const rest = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.key, { videoIds: [id] });
    expect(rest.body).toMatchObject({ found: 1, fetched: 0, transcripts: [{ videoId: id, cached: true }] });
    expect(playerCalls(id)).toBe(1);
  });
});

describe("what YouTube refuses", () => {
  it.each([
    ["fixtureNOCC", 404, "transcripts_disabled"],
    ["fixtureGONE", 404, "video_unavailable"],
    ["fixtureAGED", 403, "age_restricted"],
  ])("%s is a tool error with REST's status and code", async (videoId, status, code) => {
    const problem = problemOf(await tool("get_transcript", { videoId }));
    const rest = await get(`/v1/transcript/${videoId}`);
    expect(problem).toMatchObject({ status, code, type: `urn:transcript-service:problem:${code}` });
    expect(rest.body).toMatchObject({ status, code, detail: problem.detail });
    if (code === "transcripts_disabled") expect(problem.availableLanguages).toEqual([]);
  });

  it("a language the video lacks lists the ones it has", async () => {
    const problem = problemOf(await tool("get_transcript", { videoId: "fixtureOKAY", lang: "en-GB" }));
    expect(problem).toMatchObject({ status: 404, code: "language_not_available", availableLanguages: ["de", "en"] });
  });
});
