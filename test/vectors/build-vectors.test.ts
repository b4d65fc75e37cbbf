import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest, VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { sha256File } from "../../pipeline/artifact/manifest/manifest.js";
import { chunkSegments, loadVectorExtension, readVectorsMeta } from "../../pipeline/artifact/vectors/index.js";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { HttpEmbedder } from "../../pipeline/embeddings/http-embedder.js";
import { startEmbeddingsStandin, type EmbeddingsStandin } from "../helpers/embeddings-standin.js";
import { vectorRecords } from "./vector-records.js";

let standin: EmbeddingsStandin;
let root: string;
beforeAll(async () => {
  standin = await startEmbeddingsStandin(16);
  root = mkdtempSync(join(tmpdir(), "vectors-build-"));
});
afterAll(async () => {
  await standin.close();
  rmSync(root, { recursive: true, force: true });
});

function embedder() {
  return new HttpEmbedder({ url: standin.url, model: "stand-in", dimensions: 16, batch: 4, timeoutMs: 5000, retries: 0 });
}

function chunkCount(records: VideoRecord[]): number {
  return records.reduce((n, r) => n + (r.transcripts[0] ? chunkSegments(r.transcripts[0].segments).length : 0), 0);
}

async function build(name: string, records: VideoRecord[], previousSet?: string) {
  const lines: string[] = [];
  const outDir = join(root, name);
  const result = await buildArtifacts({
    records,
    outDir,
    log: (line) => lines.push(line),
    vectors: { embedder: embedder(), cachePath: join(root, "cache.db"), previousSet, batch: 4, intervalMs: 0 },
  });
  return { outDir, lines, manifest: result.manifest };
}

function vectorsOf(dir: string) {
  const db = new Database(join(dir, "vectors.db"), { readonly: true });
  loadVectorExtension(db);
  try {
    return {
      meta: readVectorsMeta(db),
      chunks: db.prepare("SELECT count(*) FROM chunks WHERE length(vector) = 16").pluck().get() as number,
      listed: db.prepare("SELECT coalesce(sum(last - first + 1), 0) FROM lists").pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

/** Each chunk's list, named by its centroid's bytes (hex), by the chunk's hash; and the centroids. */
function listsByHash(dir: string): { lists: Map<string, string>; centroids: Set<string> } {
  const db = new Database(join(dir, "vectors.db"), { readonly: true });
  try {
    const rows = db.prepare("SELECT hex(c.hash) AS hash, hex(l.centroid) AS centroid FROM chunks c JOIN lists l ON c.id BETWEEN l.first AND l.last").all() as { hash: string; centroid: string }[];
    const centroids = db.prepare("SELECT hex(centroid) FROM lists").pluck().all() as string[];
    return { lists: new Map(rows.map((row) => [row.hash, row.centroid])), centroids: new Set(centroids) };
  } finally {
    db.close();
  }
}

describe("the build's embedding step", () => {
  it("writes every chunk's vector into vectors.db, which the manifest lists and hashes, with the embedder that made them", async () => {
    const records = vectorRecords(6);
    const before = standin.received.length;
    const { outDir, manifest, lines } = await build("first", records);
    const expected = chunkCount(records);
    expect(expected).toBeGreaterThan(6);
    expect(standin.received.length - before).toBe(expected);
    const vectors = vectorsOf(outDir);
    expect(vectors).toMatchObject({ chunks: expected, listed: expected, meta: { embedder: { kind: "url", model: "stand-in", dimensions: 16 }, chunks: expected, transcripts: 6 } });
    expect(existsSync(join(outDir, "vectors.db-staging"))).toBe(false);
    expect(manifest.files["vectors.db"]!.sha256).toBe(await sha256File(join(outDir, "vectors.db")));
    expect(manifest.vectors).toEqual({ chunks: expected, transcripts: 6, embedder: { kind: "url", model: "stand-in", dimensions: 16 } });
    expect(lines.some((line) => /^vectors: embedding \d+\/\d+ \(\d+%\), [\d.]+\/s, ETA /.test(line))).toBe(true);
  });

  it("embeds only the chunks a new set adds, carrying the rest over from the previous set by hash", async () => {
    const records = vectorRecords(6);
    const first = await build("base", records);
    const added = vectorRecords(2, 100);
    const before = standin.received.length;
    const second = await build("grown", [...records, ...added], first.outDir);
    expect(standin.received.length - before).toBe(chunkCount(added));
    expect(second.lines.join("\n")).toContain(`${chunkCount(records)} carried over from the previous set`);
    expect(vectorsOf(second.outDir).chunks).toBe(chunkCount([...records, ...added]));
  });

  it("carries vectors over from a set of the format before the lists, whose chunks are the same", async () => {
    const records = vectorRecords(5, 200);
    const first = await build("format-1", records);
    const db = new Database(join(first.outDir, "vectors.db"));
    db.prepare("UPDATE meta SET value = '1' WHERE key = 'version'").run();
    db.close();
    const before = standin.received.length;
    const second = await build("format-2", records, first.outDir);
    expect(standin.received.length - before).toBe(0);
    expect(second.lines.join("\n")).toContain(`${chunkCount(records)} carried over from the previous set`);
    expect(vectorsOf(second.outDir).meta.version).toBe("2");
  });

  it("keeps the previous set's lists when most chunks are carried over: each stays in its list, only new chunks are placed", async () => {
    const records = vectorRecords(12, 300);
    const first = await build("lists-base", records);
    const added = vectorRecords(1, 400);
    const second = await build("lists-kept", [...records, ...added], first.outDir);
    const before = listsByHash(first.outDir);
    const after = listsByHash(second.outDir);
    const total = chunkCount([...records, ...added]);
    expect(second.lines.join("\n")).toContain(`vectors: the previous set's ${before.centroids.size} lists kept; ${chunkCount(records)} chunks stay in theirs, ${chunkCount(added)} to place`);
    expect(second.lines.join("\n")).not.toContain("lists trained on");
    expect(after.lists.size).toBe(total);
    // The same centroids, and every carried chunk in the list of the same centroid as before.
    expect([...after.centroids.keys()].every((centroid) => before.centroids.has(centroid))).toBe(true);
    for (const [hash, centroid] of before.lists) expect(after.lists.get(hash)).toBe(centroid);
    expect(vectorsOf(second.outDir).listed).toBe(total);
  });

  it("trains new lists where the set has outgrown the previous set's, or too few chunks are carried over", async () => {
    const few = vectorRecords(2, 500);
    const first = await build("lists-small", few);
    const grown = [...few, ...vectorRecords(14, 600)];
    const second = await build("lists-retrained", grown, first.outDir);
    expect(second.lines.join("\n")).toMatch(/vectors: \d+ lists trained on \d+ chunks/);
    expect(second.lines.join("\n")).not.toContain("lists kept");
    expect(vectorsOf(second.outDir).listed).toBe(chunkCount(grown));
  });

  it("without an embedder, skips the step with a line saying so, and the set has no vectors", async () => {
    const lines: string[] = [];
    const outDir = join(root, "plain");
    const { manifest } = await buildArtifacts({ records: vectorRecords(2), outDir, log: (line) => lines.push(line), vectors: { skipped: "no embedder configured" } });
    expect(lines).toContain("vectors: not made, no embedder configured; the set is searched by keyword only (EMBEDDER=builtin or EMBEDDINGS_URL embeds it)");
    expect(existsSync(join(outDir, "vectors.db"))).toBe(false);
    expect(manifest.vectors).toBeUndefined();
    expect(Object.keys(manifest.files).sort()).toEqual(["titles.flexsearch.json", "transcripts.db"]);
  });

  it("resumes a step killed with SIGKILL: the second run embeds only what the first had not committed", { timeout: 120_000 }, async () => {
    const videos = 16;
    const total = chunkCount(vectorRecords(videos));
    const cachePath = join(root, "kill-cache.db");
    const outDir = join(root, "killed", "set");
    standin.behave({ delayMs: 40 });
    const start = standin.received.length;
    const env = { ...process.env, VIDEOS: String(videos), OUT_DIR: outDir, CACHE_PATH: cachePath, EMBEDDINGS_URL: standin.url };
    const script = fileURLToPath(new URL("./embed-child.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", script], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    // Killed once it has embedded a third of the chunks.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (standin.received.length - start >= total / 3) {
          clearInterval(timer);
          child.kill("SIGKILL");
          resolve();
        }
      }, 5);
      child.on("exit", (code) => {
        clearInterval(timer);
        if (standin.received.length - start < total / 3) reject(new Error(`the child ended (${code}) before it was killed:\n${output}`));
      });
    });
    await new Promise((resolve) => child.once("exit", resolve));
    const firstRun = standin.received.length - start;
    expect(firstRun).toBeLessThan(total);
    expect(existsSync(outDir)).toBe(false);

    standin.behave({});
    const lines: string[] = [];
    await buildArtifacts({
      records: vectorRecords(videos),
      outDir,
      log: (line) => lines.push(line),
      vectors: { embedder: embedder(), cachePath, batch: 2, intervalMs: 0 },
    });
    const secondRun = standin.received.length - start - firstRun;
    const fromCache = Number(/(\d+) from the cache of an unfinished build/.exec(lines.join("\n"))?.[1]);
    // Every batch the killed run committed is reused; at most the one in flight is embedded again.
    expect(fromCache).toBeGreaterThanOrEqual(firstRun - 2);
    expect(secondRun).toBe(total - fromCache);
    expect(vectorsOf(outDir).chunks).toBe(total);
    const manifest = JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8")) as Manifest;
    expect(manifest.vectors?.chunks).toBe(total);
  });
});
