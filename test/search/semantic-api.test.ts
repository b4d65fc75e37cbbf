/**
 * GET /v1/search with mode=semantic and hybrid over a real set built with
 * vectors (the loopback embeddings stand-in: its vectors are sums of word
 * directions, so texts sharing words are near), on a real server.
 */
import Database from "better-sqlite3";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest, VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { sha256File } from "../../pipeline/artifact/manifest/manifest.js";
import { chunkSegments } from "../../pipeline/artifact/vectors/index.js";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { HttpEmbedder } from "../../pipeline/embeddings/http-embedder.js";
import { startEmbeddingsStandin, type EmbeddingsStandin } from "../helpers/embeddings-standin.js";
import { call, expectProblem } from "../server/helpers/http.js";
import { startTestServer, type Artifacts, type TestServer } from "../server/helpers/test-server.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { loadConfig } from "../../server/config.js";
import { createLogger } from "../../server/log.js";
import { QueryEmbedders, warmQueryEmbedder } from "../../server/search/semantic/query-embedders.js";

const CHANNELS = ["UCaaaaaaaaaaaaaaaaaaaaaa", "UCbbbbbbbbbbbbbbbbbbbbbb", "UCcccccccccccccccccccccc"];
const TOPICS = [
  "the tap in the kitchen drips and a new washer stops the leak under the sink",
  "the river floods the valley every spring and the farmers move their cattle",
  "a violin and a piano play the slow movement of the sonata in the concert hall",
  "the rocket engine burns fuel and oxygen to lift the satellite into orbit",
];
const FILLER = "people talk about many things during a long video and some of it is said again later on";

/** 24 videos over three channels, each a few minutes long: its topic sentence in one chunk, filler around it. */
function records(): VideoRecord[] {
  return Array.from({ length: 24 }, (_, i) => {
    const videoId = `sem${String(i).padStart(8, "0")}`;
    const lines = [...Array(4).fill(FILLER), `${TOPICS[i % TOPICS.length]} number ${i}`, ...Array(4).fill(FILLER)];
    const segments = lines.flatMap((line, l) => {
      const words = line.split(" ");
      return Array.from({ length: Math.ceil(words.length / 6) }, (_, s) => ({ start: l * 16 + s * 4, duration: 4, text: words.slice(s * 6, s * 6 + 6).join(" ") }));
    });
    return {
      videoId,
      channelId: CHANNELS[i % 3]!,
      channelTitle: `Channel ${i % 3}`,
      title: `Video ${i}`,
      viewCount: 1000 * (i + 1),
      publishedAt: new Date(Date.UTC(2022, 0, 1) + i * 7 * 86_400_000).toISOString(),
      thumbnail: "",
      lengthSeconds: 160,
      transcripts: [{ language: "English", languageCode: "en", isGenerated: false, segments }],
    };
  });
}

let standin: EmbeddingsStandin;
let root: string;
let withVectors: Artifacts;
let withoutVectors: Artifacts;
let server: TestServer;
const DIMENSIONS = 32;

beforeAll(async () => {
  standin = await startEmbeddingsStandin(DIMENSIONS);
  root = mkdtempSync(path.join(tmpdir(), "semantic-api-"));
  const embedder = new HttpEmbedder({ url: standin.url, model: "stand-in", dimensions: DIMENSIONS, batch: 16, timeoutMs: 5000, retries: 0 });
  const dir = path.join(root, "vectors");
  const { manifest } = await buildArtifacts({ records: records(), outDir: dir, vectors: { embedder, cachePath: path.join(root, "cache.db"), batch: 16 } });
  withVectors = { dir, manifest, cleanup: () => undefined };
  const plainDir = path.join(root, "plain");
  const plain = await buildArtifacts({ records: records(), outDir: plainDir });
  withoutVectors = { dir: plainDir, manifest: plain.manifest, cleanup: () => undefined };
  server = await startTestServer({ artifacts: withVectors, env: { EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "stand-in", EMBEDDINGS_TIMEOUT_MS: "1500", EMBEDDINGS_RETRIES: "0" } });
});
afterAll(async () => {
  await server.close();
  await standin.close();
  rmSync(root, { recursive: true, force: true });
});

const search = (query: string, s: TestServer = server) => call(s.baseUrl, `/v1/search?${query}`, { key: s.keys.pro });

interface Hit {
  videoId: string;
  channelId: string;
  viewCount: number;
  snippet: string;
  startSeconds: number;
  url: string;
  moments: { startSeconds: number; text: string }[];
}

/** Every hit of a query, page by page (`limit` each). */
async function allHits(query: string, limit = 5): Promise<Hit[]> {
  const hits: Hit[] = [];
  for (let offset = 0; ; offset += limit) {
    const res = await search(`${query}&limit=${limit}&offset=${offset}`);
    expect(res.status).toBe(200);
    hits.push(...(res.body.results as Hit[]));
    if (!res.body.pagination.hasMore) return hits;
  }
}

describe("search by meaning on GET /v1/search", () => {
  it("mode=semantic: a hit is a chunk, its startSeconds and &t= link the chunk's start, its snippet the chunk's text with the query's words marked", async () => {
    const res = await search("q=washer+leak+kitchen&mode=semantic&limit=4");
    expect(res.status).toBe(200);
    const hits = res.body.results as Hit[];
    expect(hits).toHaveLength(4);
    const byId = new Map(records().map((r) => [r.videoId, r]));
    for (const hit of hits) {
      const record = byId.get(hit.videoId)!;
      // The topic sentence: the videos about the tap come first.
      expect(record.transcripts[0]!.segments.map((s) => s.text).join(" ")).toContain("washer");
      const chunk = chunkSegments(record.transcripts[0]!.segments).find((c) => c.start === hit.startSeconds)!;
      expect(chunk).toBeDefined();
      expect(hit.url).toBe(`https://www.youtube.com/watch?v=${hit.videoId}&t=${Math.floor(chunk.start)}s`);
      expect(hit.snippet.replace(/<\/?mark>/g, "")).toBe(chunk.text);
      // Each query word the chunk says is marked, and it says at least one.
      const said = ["washer", "leak", "kitchen"].filter((word) => chunk.text.split(" ").includes(word));
      expect(said.length).toBeGreaterThan(0);
      for (const word of said) expect(hit.snippet).toContain(`<mark>${word}</mark>`);
    }
  });

  it("keeps keyword the default: the same body without mode and with mode=keyword", async () => {
    const plain = await search("q=river+valley");
    const keyword = await search("q=river+valley&mode=keyword");
    expect(plain.status).toBe(200);
    expect(keyword.body).toEqual(plain.body);
  });

  it("hybrid puts a video in both lists above one in a single list", async () => {
    const keywordIds = (await allHits("q=satellite")).map((h) => h.videoId);
    const semanticIds = (await allHits("q=satellite&mode=semantic")).map((h) => h.videoId);
    const hybridIds = (await allHits("q=satellite&mode=hybrid")).map((h) => h.videoId);
    expect(new Set(hybridIds)).toEqual(new Set([...keywordIds, ...semanticIds]));
    const both = hybridIds.filter((id) => keywordIds.includes(id) && semanticIds.includes(id));
    const single = hybridIds.filter((id) => !(keywordIds.includes(id) && semanticIds.includes(id)));
    if (both.length > 0 && single.length > 0) expect(hybridIds.indexOf(both[0]!)).toBeLessThan(hybridIds.indexOf(single[0]!));
    expect(both.length).toBeGreaterThan(0);
  });

  for (const mode of ["keyword", "semantic", "hybrid"] as const) {
    it(`pages through ${mode} results: the pages together are the one long page`, async () => {
      const paged = await allHits(`q=violin+sonata&mode=${mode}`, 3);
      const whole = await search(`q=violin+sonata&mode=${mode}&limit=100`);
      expect(paged.map((h) => h.videoId)).toEqual((whole.body.results as Hit[]).map((h) => h.videoId));
      expect(whole.body.pagination.total).toBe(paged.length);
    });

    it(`applies channel, minViews and the dates in ${mode} mode: every hit meets them, and none that meets them is lost`, async () => {
      const all = await allHits(`q=river+floods+cattle&mode=${mode}`, 50);
      const byId = new Map(records().map((r) => [r.videoId, r]));
      const meets = (h: Hit) => {
        const r = byId.get(h.videoId)!;
        return r.channelId === CHANNELS[1] && r.viewCount >= 5000 && r.publishedAt >= "2022-02-01" && r.publishedAt <= "2022-05-31T23:59:59.999Z";
      };
      const filtered = await allHits(`q=river+floods+cattle&mode=${mode}&channel=${CHANNELS[1]}&minViews=5000&publishedAfter=2022-02-01&publishedBefore=2022-05-31`, 2);
      expect(filtered.length).toBeGreaterThan(0);
      expect(filtered.every(meets)).toBe(true);
      expect(new Set(filtered.map((h) => h.videoId))).toEqual(new Set(all.filter(meets).map((h) => h.videoId)));
    });
  }

  it("answers from its kept rankings and query vectors exactly as a fresh server that keeps none yet, page by page and filtered", async () => {
    const requests = ["semantic", "hybrid"].flatMap((mode) =>
      ["q=leaking+tap+repair", `q=orbit+launch&channel=${CHANNELS[2]}`].flatMap((q) => [0, 2, 4].map((offset) => `${q}&mode=${mode}&limit=2&offset=${offset}`)),
    );
    const first = await Promise.all(requests.map((query) => search(query)));
    // Asked again: the query vectors and the rankings are kept from the first time.
    const again = await Promise.all(requests.map((query) => search(query)));
    const fresh = await startTestServer({ artifacts: withVectors, env: { EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "stand-in" } });
    try {
      for (const [i, query] of requests.entries()) {
        const uncached = await search(query, fresh);
        expect(uncached.status, query).toBe(200);
        expect(first[i]!.body, query).toEqual(uncached.body);
        expect(again[i]!.body, query).toEqual(uncached.body);
      }
      expect(first.filter((res) => res.body.results.length > 0).length).toBeGreaterThan(requests.length / 2);
    } finally {
      await fresh.close();
    }
  });

  it("refuses a mode it does not know with 400", async () => {
    const res = await search("q=river&mode=vector");
    expectProblem(res, 400, "invalid_parameter");
    expect(JSON.stringify(res.body)).toContain("mode");
  });

  it("says in /v1/stats how many transcripts have vectors", async () => {
    const res = await call(server.baseUrl, "/v1/stats", { key: server.keys.pro });
    expect(res.body.transcriptsWithVectors).toBe(24);
    expect(res.body.transcripts).toBe(24);
  });
});

describe("semantic search refused, keyword search still served", () => {
  it("refuses with 409 embedder_mismatch when this server's model is not the set's, naming both", async () => {
    const other = await startTestServer({ artifacts: withVectors, env: { EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "another-model" } });
    try {
      const res = await search("q=river&mode=semantic", other);
      expectProblem(res, 409, "embedder_mismatch");
      expect(res.body.detail).toContain('EMBEDDINGS_URL model "stand-in" (32 dimensions)');
      expect(res.body.detail).toContain('EMBEDDINGS_MODEL is "another-model"');
      expectProblem(await search("q=river&mode=hybrid", other), 409, "embedder_mismatch");
      expect((await search("q=river", other)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it("refuses with 409 embedder_mismatch when the server has no embedder for the set's vectors", async () => {
    const none = await startTestServer({ artifacts: withVectors });
    try {
      expectProblem(await search("q=river&mode=semantic", none), 409, "embedder_mismatch");
      expect((await search("q=river", none)).status).toBe(200);
    } finally {
      await none.close();
    }
  });

  it("refuses with 409 no_vectors on a set built without them, and says 0 in /v1/stats", async () => {
    const plain = await startTestServer({ artifacts: withoutVectors, env: { EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "stand-in" } });
    try {
      expectProblem(await search("q=river&mode=hybrid", plain), 409, "no_vectors");
      expect((await search("q=river", plain)).status).toBe(200);
      expect((await call(plain.baseUrl, "/v1/stats", { key: plain.keys.pro })).body.transcriptsWithVectors).toBe(0);
    } finally {
      await plain.close();
    }
  });

  it("refuses with 409 no_vectors, saying to build the set again, on a set whose vectors.db is of the format before", async () => {
    const dir = path.join(root, "old-format");
    cpSync(withVectors.dir, dir, { recursive: true });
    const db = new Database(path.join(dir, "vectors.db"));
    db.prepare("UPDATE meta SET value = '1' WHERE key = 'version'").run();
    db.close();
    const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as Manifest;
    manifest.files["vectors.db"] = { bytes: statSync(path.join(dir, "vectors.db")).size, sha256: await sha256File(path.join(dir, "vectors.db")) };
    writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest));
    const old = await startTestServer({ artifacts: { dir, manifest, cleanup: () => undefined }, env: { EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "stand-in" } });
    try {
      const res = await search("q=river&mode=semantic", old);
      expectProblem(res, 409, "no_vectors");
      expect(res.body.detail).toContain("vectors are of format 1, this server reads 2: build the set again");
      expect((await search("q=river", old)).status).toBe(200);
    } finally {
      await old.close();
    }
  });

  // Each query spelled its own way: query vectors are kept, so each is sent to the failing embedder; keyword search reads them alike.
  for (const [what, behaviour, words, spellings] of [
    ["answers 500", { status: 500 }, "answered 500", ["RIVER", "rIVER"]],
    ["times out", { delayMs: 3000 }, "did not answer within 1500 ms", ["RiVeR", "rIvEr"]],
    ["gives vectors of the wrong length", { answerDimensions: 8 }, "8 dimensions, but 32 are expected", ["RIVER!", "rIVER!"]],
  ] as const) {
    it(`answers with keyword search's results and says why when the embedder ${what}, in semantic and hybrid mode`, async () => {
      standin.behave(behaviour);
      try {
        for (const [mode, q] of [["semantic", spellings[0]], ["hybrid", spellings[1]]] as const) {
          const query = `q=${encodeURIComponent(q)}&channel=${CHANNELS[1]}&limit=1&offset=1`;
          const res = await search(`${query}&mode=${mode}`);
          expect(res.status).toBe(200);
          expect(res.body.fallback).toEqual({ mode: "keyword", code: "embedder_unavailable", detail: expect.stringContaining(words) });
          const keyword = await search(query);
          expect(keyword.body.fallback).toBeUndefined();
          expect(keyword.body.results).toHaveLength(1);
          expect({ query: res.body.query, results: res.body.results, pagination: res.body.pagination }).toEqual(keyword.body);
        }
        // MCP's search_transcripts gives the same body, and its text says so first.
        const mcp = await call(server.baseUrl, "/mcp", {
          method: "POST",
          key: server.keys.pro,
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_transcripts", arguments: { q: `${spellings[0]}.`, mode: "semantic" } } }),
        });
        expect(mcp.body.result.structuredContent.fallback).toMatchObject({ mode: "keyword", code: "embedder_unavailable" });
        expect(mcp.body.result.content[0].text).toMatch(/^Note: The query could not be embedded/);
        expect(mcp.body.result.isError).toBeUndefined();
        // Nothing of the failure is kept: once the embedder answers, the same search is by meaning.
        standin.behave({});
        const again = await search(`q=${encodeURIComponent(spellings[0])}&mode=semantic`);
        expect(again.status).toBe(200);
        expect(again.body.fallback).toBeUndefined();
      } finally {
        standin.behave({});
      }
    });
  }
});

describe("the query embedder readied once the set is ready", () => {
  const warm = async (env: Record<string, string>, artifacts = withVectors) => {
    const lines: string[] = [];
    const embedders = new QueryEmbedders(loadConfig({ DATA_DIR: root, ...env }));
    const catalog = openCatalog({ dir: artifacts.dir });
    const before = standin.received.length;
    try {
      await warmQueryEmbedder(catalog, embedders, createLogger({ level: "info", write: (line) => lines.push(line) }));
      return { lines: lines.map((line) => JSON.parse(line) as Record<string, unknown>), sent: standin.received.slice(before), embedders };
    } finally {
      catalog.close();
      await embedders.close();
    }
  };

  it("asks the set's embedder once and says it is ready, keeping nothing of it", async () => {
    const { lines, sent } = await warm({ EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "stand-in" });
    expect(sent).toEqual(["warm up"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "info", msg: "query embedder ready", embedder: 'EMBEDDINGS_URL model "stand-in" (32 dimensions)' });
    expect(lines[0]!.ms).toBeTypeOf("number");
  });

  it("says why semantic search is refused, asking nothing, when this server's embedder is not the set's", async () => {
    const { lines, sent } = await warm({ EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "another-model" });
    expect(sent).toEqual([]);
    expect(lines).toEqual([expect.objectContaining({ msg: "semantic search refused", detail: expect.stringContaining('EMBEDDINGS_MODEL is "another-model"') })]);
  });

  it("warns, naming the failure, when the embedder does not answer", async () => {
    standin.behave({ status: 500 });
    try {
      const { lines } = await warm({ EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "stand-in", EMBEDDINGS_RETRIES: "0" });
      expect(lines).toEqual([expect.objectContaining({ level: "warn", msg: "query embedder failed", detail: expect.stringContaining("500") })]);
    } finally {
      standin.behave({});
    }
  });

  it("does nothing for a set without vectors", async () => {
    const { lines, sent } = await warm({ EMBEDDINGS_URL: standin.url, EMBEDDINGS_MODEL: "stand-in" }, withoutVectors);
    expect(lines).toEqual([]);
    expect(sent).toEqual([]);
  });
});
