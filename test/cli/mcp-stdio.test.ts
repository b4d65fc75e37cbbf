/**
 * `npm run mcp -- --stdio` as a desktop client runs it: a child process the
 * SDK's Client speaks MCP to over stdin/stdout (StdioClientTransport), which
 * calls a real server on port 0 with the key from its settings. The tools it
 * lists and their answers are the server's own; what the server refuses over
 * HTTP comes back as a tool error holding the problem document.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDS } from "../server/helpers/fixture-records.js";
import { call } from "../server/helpers/http.js";
import { roomInThisMinute } from "../helpers/rate-window.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "../server/helpers/test-server.js";

const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..");
const BIN = path.join(REPO_ROOT, "bin", "transcript-service-mcp.mjs");

let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "8" } });
});
afterAll(async () => {
  await server?.close();
  artifacts?.cleanup();
});

/** The stdio process (the package's bin, as an MCP client configuration starts it), spoken to by the SDK's Client. */
async function stdioClient(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "--stdio"],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const problemOf = (result: CallToolResult) => {
  expect(result.isError).toBe(true);
  return JSON.parse((result.content[0] as { text: string }).text) as Record<string, any>;
};

describe("npm run mcp -- --stdio", () => {
  it("lists the server's tools and answers their calls as /mcp does, its key counted in the server's window", async () => {
    // The key's eight requests are counted in one clock minute only if they do not cross into the next.
    await roomInThisMinute(30);
    const { client, stderr } = await stdioClient({ TRANSCRIPTS_URL: `${server.baseUrl}/`, TRANSCRIPTS_API_KEY: server.keys.pro });
    try {
      expect(client.getServerVersion()?.name).toBe("transcript-service");
      expect(client.getInstructions()).toContain("get_transcript");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["search_transcripts", "get_transcript", "get_transcripts", "list_channels", "list_channel_videos", "get_stats"]);
      const stats = (await client.callTool({ name: "get_stats", arguments: {} })) as CallToolResult;
      expect(stats.structuredContent).toEqual((await call(server.baseUrl, "/v1/stats", { key: server.keys.pro })).body);
      const transcript = (await client.callTool({ name: "get_transcript", arguments: { videoId: `https://youtu.be/${IDS.chapters}` } })) as CallToolResult;
      expect(transcript.structuredContent).toMatchObject({ videoId: IDS.chapters, cached: true, content: expect.stringContaining("photosynthesis") });
      expect(problemOf((await client.callTool({ name: "get_transcript", arguments: { videoId: IDS.unknown } })) as CallToolResult)).toMatchObject({
        status: 404,
        code: "video_not_found",
      });
      // tools/list, three calls and two REST requests: six of the key's eight.
      const rest = await call(server.baseUrl, "/v1/stats", { key: server.keys.pro });
      expect(rest.headers.get("x-ratelimit-remaining")).toBe("2");
      for (let i = 0; i < 2; i++) await client.callTool({ name: "get_stats", arguments: {} });
      const limited = problemOf((await client.callTool({ name: "get_stats", arguments: {} })) as CallToolResult);
      expect(limited).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: expect.any(Number) });
      expect(stderr()).toContain(`calling ${server.baseUrl}/mcp`);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("a bad key is a tool error with the server's 401 problem; an unreachable service one with service_unreachable", async () => {
    const bad = await stdioClient({ TRANSCRIPTS_URL: server.baseUrl, TRANSCRIPTS_API_KEY: "tsk_wrong" });
    try {
      expect(problemOf((await bad.client.callTool({ name: "get_stats", arguments: {} })) as CallToolResult)).toMatchObject({ status: 401, code: "invalid_api_key" });
      await expect(bad.client.listTools()).rejects.toThrow(/invalid_api_key/);
    } finally {
      await bad.client.close();
    }
    const away = await stdioClient({ TRANSCRIPTS_URL: "http://127.0.0.1:9", TRANSCRIPTS_API_KEY: server.keys.pro });
    try {
      expect(problemOf((await away.client.callTool({ name: "get_stats", arguments: {} })) as CallToolResult)).toMatchObject({ code: "service_unreachable" });
    } finally {
      await away.client.close();
    }
  });

  it("--help prints the usage; without --stdio, a key or with a bad URL it exits 2 naming what is wrong", () => {
    const run = (args: string[], env: Record<string, string>) =>
      spawnSync(process.execPath, ["--import", "tsx", "cli/mcp.ts", ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8" });
    const help = run(["--help"], {});
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("TRANSCRIPTS_API_KEY");
    expect(run([], { TRANSCRIPTS_API_KEY: "k" })).toMatchObject({ status: 2, stderr: expect.stringContaining("Expected --stdio") });
    expect(run(["--stdio"], {})).toMatchObject({ status: 2, stderr: expect.stringContaining("TRANSCRIPTS_API_KEY is not set") });
    const badUrl = run(["--stdio"], { TRANSCRIPTS_API_KEY: "k", TRANSCRIPTS_URL: "ftp://example.com" });
    expect(badUrl).toMatchObject({ status: 2, stderr: expect.stringContaining("TRANSCRIPTS_URL: must be an http(s) URL") });
    expect(badUrl.stderr).not.toContain("ftp://example.com");
  }, 120_000);
});
