/**
 * The route's short path for plain tools/call messages (server/mcp/direct-call.ts):
 * which messages and headers take it, and, against a real server on port 0
 * over a real artifact set, that every tool's answers and failures on it are
 * byte for byte what the SDK answers to the same call sent with `_meta`
 * (which the short path leaves to the SDK).
 */
import type { IncomingHttpHeaders } from "node:http";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directCall } from "../../server/mcp/direct-call.js";
import { TOOLS } from "../../server/mcp/tools.js";
import { CHANNEL_A, CHANNEL_UNKNOWN, IDS } from "./helpers/fixture-records.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

const HEADERS: IncomingHttpHeaders = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
  "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
};
const SEARCH = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_transcripts", arguments: { q: "river" } } };

describe("which calls the route answers itself", () => {
  it("a plain tools/call of a known tool, with the headers the SDK's client sends, with or without arguments or a protocol version", () => {
    expect(directCall(SEARCH, HEADERS, TOOLS)).toEqual({ id: 1, tool: TOOLS.find((t) => t.name === "search_transcripts"), args: { q: "river" } });
    expect(directCall({ ...SEARCH, id: "a-1", params: { name: "get_stats" } }, HEADERS, TOOLS)).toMatchObject({ id: "a-1", args: {} });
    const { "mcp-protocol-version": _version, ...unversioned } = HEADERS;
    expect(directCall(SEARCH, { ...unversioned, "content-type": "application/json; charset=utf-8" }, TOOLS)).toBeDefined();
  });

  it.each([
    ["another method", { ...SEARCH, method: "tools/list" }],
    ["an unknown tool", { ...SEARCH, params: { name: "no_such_tool" } }],
    ["_meta in the params", { ...SEARCH, params: { ...SEARCH.params, _meta: { progressToken: 1 } } }],
    ["task in the params", { ...SEARCH, params: { ...SEARCH.params, task: { ttl: 1000 } } }],
    ["a key beside the message's own", { ...SEARCH, extra: true }],
    ["a notification (no id)", { jsonrpc: "2.0", method: "tools/call", params: SEARCH.params }],
    ["an id that is not an integer", { ...SEARCH, id: 1.5 }],
    ["a null id", { ...SEARCH, id: null }],
    ["another JSON-RPC version", { ...SEARCH, jsonrpc: "1.0" }],
    ["arguments that are not an object", { ...SEARCH, params: { name: "search_transcripts", arguments: ["river"] } }],
    ["arguments that are null", { ...SEARCH, params: { name: "search_transcripts", arguments: null } }],
    ["a __proto__ argument", { ...SEARCH, params: { name: "search_transcripts", arguments: JSON.parse('{"__proto__": {}, "q": "river"}') } }],
    ["params that are not an object", { ...SEARCH, params: "search_transcripts" }],
  ])("%s goes to the SDK", (_what, message) => {
    expect(directCall(message, HEADERS, TOOLS)).toBeUndefined();
  });

  it.each([
    ["an Accept without text/event-stream", { ...HEADERS, accept: "application/json" }],
    ["no Accept", { ...HEADERS, accept: undefined }],
    ["a Content-Type that is not JSON", { ...HEADERS, "content-type": "text/plain" }],
    ["an unsupported protocol version", { ...HEADERS, "mcp-protocol-version": "1999-01-01" }],
  ])("%s goes to the SDK, whose transport refuses it", (_what, headers) => {
    expect(directCall(SEARCH, headers, TOOLS)).toBeUndefined();
  });
});

describe("the short path answers what the SDK answers", () => {
  let artifacts: Artifacts;
  let server: TestServer;

  beforeAll(async () => {
    artifacts = await buildFixtureArtifacts();
    server = await startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "100000", BULK_PLANS: "pro" } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    artifacts?.cleanup();
  });

  /** The raw answer to a tools/call, with the request id fixed so that problem documents match. */
  async function rpc(id: number | string, params: Record<string, unknown>, key: string): Promise<{ status: number; type: string | null; text: string }> {
    const res = await fetch(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers: { ...(HEADERS as Record<string, string>), "X-API-Key": key, "X-Request-Id": "same-request-id" },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }),
    });
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  }

  it.each([
    ["search_transcripts", { q: "river", limit: 3 }],
    ["search_transcripts", { q: "river", offset: 2, minViews: 100, channel: CHANNEL_A }],
    ["search_transcripts", { q: "markup" }],
    ["search_transcripts", { q: "" }],
    ["search_transcripts", { q: "river", limt: 3 }],
    ["get_transcript", { videoId: IDS.markup }],
    ["get_transcript", { videoId: `https://www.youtube.com/watch?v=${IDS.chapters}`, format: "srt" }],
    ["get_transcript", { videoId: IDS.german, lang: "de", format: "json" }],
    ["get_transcript", { videoId: IDS.silent }],
    ["get_transcript", { videoId: IDS.markup, startSeconds: 5, endSeconds: 1 }],
    ["get_transcripts", { videoIds: [IDS.markup, IDS.chapters, "not-an-id"], fetchMissing: false }],
    ["list_channels", { limit: 1 }],
    ["list_channel_videos", { channelId: CHANNEL_A, limit: 2 }],
    ["list_channel_videos", { channelId: CHANNEL_UNKNOWN }],
    ["get_stats", {}],
    ["get_stats", { extra: 1 }],
  ])("%s %j", async (name, args) => {
    const direct = await rpc(7, { name, arguments: args }, server.keys.pro);
    const sdk = await rpc(7, { name, arguments: args, _meta: {} }, server.keys.pro);
    expect(direct.status).toBe(200);
    expect(direct).toEqual(sdk);
  });

  it("with a string id, without arguments, and for a tool the key's plan does not allow", async () => {
    expect(await rpc("s-1", { name: "get_stats" }, server.keys.pro)).toEqual(await rpc("s-1", { name: "get_stats", _meta: {} }, server.keys.pro));
    const bulk = { name: "get_transcripts", arguments: { videoIds: [IDS.markup] } };
    const refused = await rpc(8, bulk, server.keys.free);
    expect(JSON.parse(refused.text).result).toMatchObject({ isError: true });
    expect(refused).toEqual(await rpc(8, { ...bulk, _meta: {} }, server.keys.free));
  });
});
