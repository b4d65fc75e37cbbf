/**
 * The README's curl examples, run against the real demo dataset: if the demo
 * data or the API changes under them, this fails instead of the README lying.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifacts } from "../pipeline/build.js";
import { DEMO_DATASET, demoRecords } from "../pipeline/demo.js";
import { startTestServer, type TestServer } from "./server/helpers/test-server.js";

interface CurlCall {
  line: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Every `curl` of the README's sh blocks, with `$KEY` and the default address left to fill in. */
function readmeCurls(): CurlCall[] {
  const readme = readFileSync(path.resolve(import.meta.dirname, "../README.md"), "utf8");
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, " "));
  const lines = blocks.flatMap((b) => b.split("\n")).filter((l) => l.trim().startsWith("curl "));
  return lines.map((line) => {
    const tokens = [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
    const call: CurlCall = { line, url: "", headers: {} };
    for (let i = 1; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token === "-H") {
        const [name, ...value] = tokens[++i]!.split(":");
        call.headers[name!.trim()] = value.join(":").trim();
      } else if (token === "-d") call.body = tokens[++i]!;
      else if (token.startsWith("http")) call.url = token;
    }
    return call;
  });
}

describe("the README's curl examples against the demo dataset", () => {
  let server: TestServer;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "readme-demo-"));
    const dir = path.join(root, "current");
    const { manifest } = await buildArtifacts({ records: demoRecords(), outDir: dir, dataset: DEMO_DATASET });
    server = await startTestServer({ artifacts: { dir, manifest, cleanup: () => {} } });
  }, 240_000);
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const calls = readmeCurls();

  it("finds the examples", () => {
    expect(calls.length).toBeGreaterThanOrEqual(5);
  });

  it.each(calls.map((c) => [c.line, c] as const))("%s answers 200 with content", async (_line, call) => {
    const url = call.url.replace("http://127.0.0.1:3000", server.baseUrl);
    const headers = Object.fromEntries(Object.entries(call.headers).map(([k, v]) => [k, v.replace("$KEY", server.keys.pro)]));
    const response = await fetch(url, { method: call.body === undefined ? "GET" : "POST", headers, body: call.body });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    // Each example must show something, not an empty page.
    const content = body.results ?? body.transcripts ?? body.videos ?? body.transcript;
    if (Array.isArray(content)) expect(content.length).toBeGreaterThan(0);
    else expect(body).toBeTruthy();
  });
});
