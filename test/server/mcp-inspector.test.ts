/**
 * /mcp spoken to by an independent client: the MCP Inspector's CLI (its own
 * client package, not the SDK our server and other tests use), run as a child
 * process against a real server on port 0. It lists the tools with its
 * schema-portability check (`--strict`) and calls them; a tool error is the
 * inspector's "tool returned an error" exit with the REST problem code.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./helpers/http.js";
import { IDS } from "./helpers/fixture-records.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

const INSPECTOR = fileURLToPath(new URL("../../node_modules/.bin/mcp-inspector", import.meta.url));

let artifacts: Artifacts;
let server: TestServer;
/** The inspector keeps a catalog under HOME; each run gets an empty one. */
let home: string;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "1000" } });
  home = mkdtempSync(path.join(tmpdir(), "mcp-inspector-home-"));
}, 60_000);
afterAll(async () => {
  await server?.close();
  artifacts?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function inspector(args: string[], header = `X-API-Key: ${server.keys.pro}`): Promise<Run> {
  const argv = ["--cli", `${server.baseUrl}/mcp`, "--transport", "http", "--header", header, ...args];
  return new Promise((resolve) => {
    execFile(INSPECTOR, argv, { env: { ...process.env, HOME: home }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function toolCall(name: string, args: Record<string, string | number>, header?: string): Promise<Run> {
  const pairs = Object.entries(args).flatMap(([key, value]) => ["--tool-arg", `${key}=${value}`]);
  return inspector(["--method", "tools/call", "--tool-name", name, ...pairs], header);
}

describe("the MCP Inspector's CLI", () => {
  it("lists the six tools, and its strict schema check finds no problem", async () => {
    const run = await inspector(["--method", "tools/list", "--strict"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const { tools } = JSON.parse(run.stdout) as { tools: { name: string; inputSchema: unknown; outputSchema: unknown }[] };
    expect(tools.map((t) => t.name).sort()).toEqual(["get_stats", "get_transcript", "get_transcripts", "list_channel_videos", "list_channels", "search_transcripts"]);
    for (const t of tools) expect(t.inputSchema, t.name).toMatchObject({ type: "object" });
  });

  it("searches: hits with the matched moment, as REST answers them", async () => {
    const run = await toolCall("search_transcripts", { q: "river", limit: 2 });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { structuredContent: { results: Record<string, unknown>[]; pagination: Record<string, unknown> } };
    const rest = await call(server.baseUrl, "/v1/search?q=river&limit=2", { key: server.keys.pro });
    expect(result.structuredContent.results).toEqual(rest.body.results);
    expect(result.structuredContent.pagination).toEqual(rest.body.pagination);
    expect(result.structuredContent.results[0]).toMatchObject({ url: expect.stringMatching(/^https:\/\/www\.youtube\.com\/watch\?v=.+&t=\d+s$/) });
  });

  it("reads a transcript as SubRip with a Bearer key, the same bytes as REST", async () => {
    const run = await toolCall("get_transcript", { videoId: IDS.markup, format: "srt" }, `Authorization: Bearer ${server.keys.pro}`);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { content: { type: string; text: string }[]; structuredContent: { format: string; content: string } };
    const rest = await fetch(`${server.baseUrl}/v1/transcript/${IDS.markup}?format=srt`, { headers: { "X-API-Key": server.keys.pro } });
    const srt = await rest.text();
    expect(srt).toMatch(/^1\n00:00:00,000 --> /);
    expect(result.structuredContent).toMatchObject({ format: "srt", content: srt });
    // The readable text is a heading line or two, then the same SubRip.
    expect(result.content[0]?.text.endsWith(srt)).toBe(true);
  });

  it("counts what /v1/stats counts", async () => {
    const run = await toolCall("get_stats", {});
    expect(run.code, run.stderr).toBe(0);
    const rest = await call(server.baseUrl, "/v1/stats", { key: server.keys.pro });
    const stats = (JSON.parse(run.stdout) as { structuredContent: Record<string, unknown> }).structuredContent;
    expect(stats.totalTranscripts).toBe(rest.body.totalTranscripts);
    expect(stats.totalVideos).toBe(rest.body.totalVideos);
  });

  it("an unknown video is a tool error carrying the REST code, not a protocol failure", async () => {
    const run = await toolCall("get_transcript", { videoId: IDS.unknown });
    expect(run.code).not.toBe(0);
    const result = JSON.parse(run.stdout) as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ status: 404, code: "video_not_found" });
  });

  it("without a valid key it cannot connect", async () => {
    const run = await inspector(["--method", "tools/list"], "X-API-Key: tsk_not_a_key");
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain("search_transcripts");
    // A 401 makes the inspector look for OAuth, which a key-protected server does not offer.
    expect(run.stderr).toMatch(/auth_required/);
  });
});
