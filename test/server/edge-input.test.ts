/**
 * Input refused at the edge, over a real server on port 0: a lone UTF-16
 * surrogate in a JSON body (REST and MCP alike) instead of echoing it in an
 * answer strict JSON parsers refuse; a `__proto__` tool argument, which
 * would otherwise vanish instead of being refused like any unknown
 * argument; a time window too far out to be a time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDS } from "./helpers/fixture-records.js";
import { call } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
}, 60_000);
afterAll(async () => {
  await server?.close();
  artifacts?.cleanup();
});

/** A JSON-RPC tools/call, its body written by hand so that escapes reach the server as sent. */
function toolsCall(id: number, name: string, argumentsJson: string) {
  return call(server.baseUrl, "/mcp", {
    method: "POST",
    key: server.keys.pro,
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}}}`,
  });
}

describe("a lone surrogate in a JSON body", () => {
  it("MCP: is a parse error naming it, not a search whose answer echoes it", async () => {
    const res = await toolsCall(1, "search_transcripts", '{"q":"river\\ud800"}');
    expect(res.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32700, message: expect.stringContaining("lone UTF-16 surrogate") } });
  });

  it("REST: is 400 invalid_json naming it", async () => {
    const res = await call(server.baseUrl, "/v1/transcripts/bulk", {
      method: "POST",
      key: server.keys.pro,
      headers: { "Content-Type": "application/json" },
      body: `{"videoIds":["${IDS.chapters}"],"lang":"en\\udc00"}`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "invalid_json", detail: expect.stringContaining("lone UTF-16 surrogate") });
  });

  it("a surrogate pair written as escapes is well-formed and passes", async () => {
    const res = await toolsCall(2, "search_transcripts", '{"q":"river \\ud83d\\ude00"}');
    expect(res.body.result.structuredContent.query).toBe("river 😀");
  });
});

describe("a __proto__ tool argument", () => {
  it("is refused as invalid params, as the SDK would otherwise drop it without a word", async () => {
    const res = await toolsCall(3, "search_transcripts", '{"q":"river","__proto__":{"limit":1}}');
    expect(res.body).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: 'Invalid params: "__proto__" is not an argument of any tool.' } });
  });

  it("another unknown argument is still the tool's invalid_parameter error", async () => {
    const res = await toolsCall(4, "search_transcripts", '{"q":"river","bogus":1}');
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toContain("invalid_parameter");
  });
});

describe("a time window", () => {
  it("past 10,000,000 seconds is refused, naming the argument, instead of printed as a time", async () => {
    const res = await toolsCall(5, "get_transcript", `{"videoId":"${IDS.chapters}","startSeconds":1e300}`);
    expect(res.body.result.isError).toBe(true);
    const problem = JSON.parse(res.body.result.content[0].text as string) as { code: string; errors: { param: string; message: string }[] };
    expect(problem.code).toBe("invalid_parameter");
    expect(problem.errors).toContainEqual({ param: "startSeconds", message: "must be at most 10000000" });
  });
});
