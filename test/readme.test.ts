/**
 * The documented examples (README.md, docs/api.md, docs/errors.md, docs/mcp.md) run against a real server
 * on the demo dataset: each `curl` is followed by the JSON the demo answers,
 * and the test compares the two, so an example cannot go stale.
 *
 * In a documented response, `"…"` stands for any value (request ids, timings),
 * a longer string ending in `…` for any string that starts with the rest, and a
 * list ending in `"…"` for a list that starts with the items before it. Every
 * other field and value must be what the server answers, and an object must
 * have exactly the documented fields. A ```text block after a `curl` is a
 * non-JSON response (SubRip, WebVTT, plain text), compared line by line the
 * same way: a last line `…` stands for the lines that follow.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifacts } from "../pipeline/build/build-artifacts.js";
import { DEMO_DATASET, DEMO_VECTOR_TRANSCRIPTS, demoRecords } from "../pipeline/corpus/demo-set.js";
import { vectorsOption } from "../pipeline/vectors/vectors-option.js";
import { startTestServer, type TestServer } from "./server/helpers/test-server.js";
import { SETTINGS } from "../settings/settings.js";

const DOCUMENTS = ["README.md", "docs/api.md", "docs/errors.md", "docs/mcp.md"];
const ANY = "…";

interface Example {
  where: string;
  line: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The documented response, or undefined when no ```json or ```text block follows the curl. */
  response: unknown;
  /** The response is the text of a ```text block: compared as a list of lines. */
  text?: true;
}

/** Each `curl` of a document's sh blocks, with the ```json block right after it as its response. */
function documentedExamples(file: string): Example[] {
  const text = readFileSync(path.resolve(import.meta.dirname, "..", file), "utf8");
  const blocks = [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1]!,
    text: m[2]!,
    line: text.slice(0, m.index).split("\n").length,
  }));
  const examples: Example[] = [];
  blocks.forEach((block, i) => {
    if (block.lang !== "sh") return;
    const lines = block.text.replace(/\\\n\s*/g, " ").split("\n").filter((l) => l.trim().startsWith("curl "));
    for (const line of lines) {
      const next = blocks[i + 1];
      const single = lines.length === 1;
      const where = `${file}:${block.line}`;
      if (single && next?.lang === "text") examples.push({ where, line, ...parseCurl(line), response: next.text.split("\n").slice(0, -1), text: true });
      else examples.push({ where, line, ...parseCurl(line), response: single && next?.lang === "json" ? (JSON.parse(next.text) as unknown) : undefined });
    }
  });
  return examples;
}

function parseCurl(line: string): Pick<Example, "url" | "headers" | "body"> {
  const tokens = [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  const call: Pick<Example, "url" | "headers" | "body"> = { url: "", headers: {} };
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === "-H") {
      const [name, ...value] = tokens[++i]!.split(":");
      call.headers[name!.trim()] = value.join(":").trim();
    } else if (token === "-d") call.body = tokens[++i]!;
    else if (token.startsWith("http")) call.url = token;
  }
  return call;
}

const show = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** Where the served JSON differs from the documented one, one line per difference. */
export function differences(documented: unknown, served: unknown, at = "$"): string[] {
  if (documented === ANY) return [];
  if (typeof documented === "string" && documented.endsWith(ANY)) {
    const prefix = documented.slice(0, -ANY.length);
    return typeof served === "string" && served.startsWith(prefix) ? [] : [`${at}: documented ${show(documented)} (a start), served ${show(served)}`];
  }
  if (Array.isArray(documented)) {
    if (!Array.isArray(served)) return [`${at}: documented a list, served ${show(served)}`];
    const open = documented.at(-1) === ANY;
    const items = open ? documented.slice(0, -1) : documented;
    if (open ? served.length < items.length : served.length !== items.length) {
      return [`${at}: documented ${items.length}${open ? " or more" : ""} items, served ${served.length}`];
    }
    return items.flatMap((item, i) => differences(item, served[i], `${at}[${i}]`));
  }
  if (documented !== null && typeof documented === "object") {
    if (served === null || typeof served !== "object" || Array.isArray(served)) return [`${at}: documented an object, served ${show(served)}`];
    const doc = documented as Record<string, unknown>;
    const real = served as Record<string, unknown>;
    return [
      ...Object.keys(doc).flatMap((k) => (k in real ? differences(doc[k], real[k], `${at}.${k}`) : [`${at}.${k}: documented, not served`])),
      ...Object.keys(real).filter((k) => !(k in doc)).map((k) => `${at}.${k}: served ${show(real[k])}, not documented`),
    ];
  }
  return Object.is(documented, served) ? [] : [`${at}: documented ${show(documented)}, served ${show(served)}`];
}

describe("comparing a documented response with a served one", () => {
  it("accepts placeholders, cut strings and open lists, and names every other difference", () => {
    const served = { id: "abc", n: 5856, at: "2026-01-01", text: "What comes in", list: [1, 2, 3], extra: true };
    expect(differences({ id: "abc", n: 5856, at: ANY, text: "What co…", list: [1, ANY], extra: true }, served)).toEqual([]);
    expect(differences({ id: "abc", n: 1290, at: ANY, text: "Who…", list: [1, 2], missing: 1 }, served)).toEqual([
      "$.n: documented 1290, served 5856",
      "$.text: documented \"Who…\" (a start), served \"What comes in\"",
      "$.list: documented 2 items, served 3",
      "$.missing: documented, not served",
      "$.extra: served true, not documented",
    ]);
  });
});

describe("the quick start", () => {
  const readme = readFileSync(path.resolve(import.meta.dirname, "..", "README.md"), "utf8");
  const quickStart = /^## Quick start\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? "";
  const serverSettings = SETTINGS.filter((s) => s.readBy.includes("server")).map((s) => s.name);

  it("says how to serve on another port or interface, with PORT and HOST", () => {
    expect(quickStart).toMatch(/`PORT=\d+ npm start`/);
    expect(quickStart).toMatch(/`HOST=\S+ npm start`/);
  });

  it("sets only settings that npm start reads", () => {
    const set = [...quickStart.matchAll(/\b([A-Z][A-Z0-9_]*)=\S* npm start/g)].map((m) => m[1]);
    expect(set.length).toBeGreaterThan(0);
    expect(set.filter((name) => !serverSettings.includes(name as string))).toEqual([]);
  });
});

describe("the documented examples against the demo dataset", () => {
  let server: TestServer;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "readme-demo-"));
    const dir = path.join(root, "current");
    // As `npm run pipeline -- demo` builds it: its most viewed transcripts embedded with the built-in model.
    const vectors = vectorsOption(root, undefined, { builtin: true, limit: DEMO_VECTOR_TRANSCRIPTS });
    const { manifest } = await buildArtifacts({ records: demoRecords(), outDir: dir, dataset: DEMO_DATASET, vectors });
    server = await startTestServer({ artifacts: { dir, manifest, cleanup: () => {} } });
  }, 240_000);
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const examples = DOCUMENTS.flatMap(documentedExamples);

  it("finds the examples, each with its documented response", () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    expect(examples.filter((e) => e.response === undefined).map((e) => `${e.where}: ${e.line}`)).toEqual([]);
  });

  it.each(examples.map((e) => [`${e.where}: ${e.line}`, e] as const))("%s", async (_name, example) => {
    const url = example.url.replace("http://127.0.0.1:3000", server.baseUrl);
    const headers = Object.fromEntries(Object.entries(example.headers).map(([k, v]) => [k, v.replace("$KEY", server.keys.pro)]));
    const response = await fetch(url, { method: example.body === undefined ? "GET" : "POST", headers, body: example.body });
    if (example.text) {
      expect(response.status).toBe(200);
      expect(differences(example.response, (await response.text()).split("\n")).join("\n")).toBe("");
      return;
    }
    const documented = example.response as Record<string, unknown>;
    // A problem document names its status; any other example is a 200.
    const status = typeof documented.type === "string" && typeof documented.status === "number" ? documented.status : 200;
    expect(response.status).toBe(status);
    const served = (await response.json()) as unknown;
    expect(differences(documented, served).join("\n")).toBe("");
  });
});
