/**
 * tools/call requests an MCP client gets wrong, against a real server on
 * port 0 over a real artifact set: `params` or `arguments` of the wrong
 * shape are JSON-RPC's invalid params (-32602) with a message a person can
 * act on, and a window that starts past the end of a transcript is a tool
 * error naming the transcript's end and the video's length, not an empty
 * success. And the formats the tool takes are the formats documented.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDS } from "./helpers/fixture-records.js";
import { call } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;
let client: Client;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
  client = new Client({ name: "mcp-calls-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { "X-API-Key": server.keys.pro } } }));
  await client.listTools();
}, 60_000);
afterAll(async () => {
  await client?.close();
  await server?.close();
  artifacts?.cleanup();
});

function rpc(message: unknown) {
  return call(server.baseUrl, "/mcp", {
    method: "POST",
    key: server.keys.pro,
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify(message),
  });
}

const toolsCall = (id: number, params: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params });

describe("tools/call with params of the wrong shape", () => {
  it.each([
    ["an array", [1]],
    ["a string", "river"],
    ["a number", 5],
    ["null", null],
    ["a boolean", true],
  ])("arguments that are %s are invalid params (-32602), saying arguments must be an object", async (_what, args) => {
    const res = await rpc(toolsCall(11, { name: "search_transcripts", arguments: args }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: "2.0", id: 11, error: { code: -32602, message: expect.any(String) } });
    const { message } = res.body.error as { message: string };
    expect(message).toMatch(/^Invalid params: arguments must be an object/);
    // A sentence, not a dump of the validator's issues.
    expect(message).not.toMatch(/invalid_type|"path"|expected/i);
  });

  it("a missing or non-string tool name is invalid params too, with its own message", async () => {
    for (const params of [{ arguments: {} }, { name: 7, arguments: {} }]) {
      const res = await rpc(toolsCall(12, params));
      expect(res.body).toEqual({ jsonrpc: "2.0", id: 12, error: { code: -32602, message: expect.stringMatching(/^Invalid params: name must be a string/) } });
    }
    const noParams = await rpc({ jsonrpc: "2.0", id: 13, method: "tools/call" });
    expect(noParams.body).toEqual({ jsonrpc: "2.0", id: 13, error: { code: -32602, message: expect.stringMatching(/^Invalid params: params must be an object/) } });
  });

  it("well-formed calls still reach the tools: no arguments, and arguments as an object", async () => {
    const stats = await rpc(toolsCall(14, { name: "get_stats" }));
    expect(stats.body.result.structuredContent.videos).toBeGreaterThan(0);
    const search = await rpc(toolsCall(15, { name: "search_transcripts", arguments: { q: "river", limit: 1 } }));
    expect(search.body.result.structuredContent.results).toHaveLength(1);
  });
});

describe("get_transcript with startSeconds past the end", () => {
  const tool = (args: Record<string, unknown>) => client.callTool({ name: "get_transcript", arguments: args }) as Promise<CallToolResult>;

  function problemOf(result: CallToolResult): Record<string, any> {
    expect(result.isError, JSON.stringify(result)).toBe(true);
    return JSON.parse((result.content[0] as { text: string }).text) as Record<string, any>;
  }

  it("is a start_past_end tool error naming where the transcript ends and how long the video is", async () => {
    // The English track of IDS.chapters: two segments of 2.5 s, so it ends at 5 s; the video lasts 300 s.
    for (const args of [{ startSeconds: 5 }, { startSeconds: 60, format: "json" }, { startSeconds: 900, endSeconds: 1000, format: "srt" }]) {
      const problem = problemOf(await tool({ videoId: IDS.chapters, ...args }));
      expect(problem).toMatchObject({
        status: 400,
        code: "start_past_end",
        type: "urn:transcript-service:problem:start_past_end",
        duration: 5,
        errors: [{ param: "startSeconds", message: expect.stringContaining("0:05") }],
      });
      expect(problem.detail).toContain("0:05");
      expect(problem.detail).toContain("5:00");
    }
  });

  it("a start inside the transcript still answers its segments", async () => {
    const result = await tool({ videoId: IDS.chapters, startSeconds: 4, format: "json" });
    expect(result.isError ?? false).toBe(false);
    expect((result.structuredContent as { segments: unknown[] }).segments).toHaveLength(1);
  });
});

describe("the formats of get_transcript, as documented", () => {
  it("docs/mcp.md and the tool's own description name every format the tool accepts", async () => {
    const { tools } = await client.listTools();
    const format = (tools.find((t) => t.name === "get_transcript")!.inputSchema.properties as Record<string, { enum: string[]; description: string }>).format!;
    expect(format.enum).toEqual(expect.arrayContaining(["text", "json", "srt", "vtt"]));
    const mcp = readFileSync(new URL("../../docs/mcp.md", import.meta.url), "utf8");
    const row = mcp.split("\n").find((line) => line.startsWith("| `get_transcript` |"));
    expect(row).toBeDefined();
    for (const name of format.enum) {
      expect(row, name).toContain(`\`${name}\``);
      expect(format.description, name).toContain(name);
    }
  });
});
