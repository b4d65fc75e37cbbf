/**
 * The `semantic` phase (opt-in): search by meaning measured.
 *
 * - The built-in embedder's throughput on real text (Brown passages cut into chunks as the build cuts them).
 * - Vector search at the chunk count of 500,000 transcripts (the seeded corpus sampled for its chunks per
 *   transcript): a vectors.db of that many chunks, in the set's own format, whose vectors come from a
 *   deterministic stand-in (clustered, 512 dimensions): embedding that many chunks with the built-in
 *   model would take days here, put in lists as the build does. p50/p99 of the server's call (the 500
 *   nearest chunks, from the lists nearest the query), and recall@10 of that against exact search.
 * - The paraphrase known-item set (paraphrase-corpus.ts), embedded with the built-in model: recall@10
 *   of keyword, semantic and hybrid search through the server's own code.
 */
import Database from "better-sqlite3";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { chunkSegments, quantizeInt8, STAGED_CHUNKS_DDL, VECTORS_FILE, VECTORS_VERSION, vectorBytes } from "../../pipeline/artifact/vectors/index.js";
import { LISTS_METHOD, writeListedVectors } from "../../pipeline/vectors/write-lists.js";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { BuiltinEmbedder } from "../../pipeline/embeddings/builtin-embedder.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { searchInMode, type SearchMode } from "../../server/search/semantic/mode-search.js";
import { QueryEmbedders } from "../../server/search/semantic/query-embedders.js";
import { SEMANTIC_CHUNKS } from "../../server/search/semantic/semantic-set.js";
import { PROBES, VectorIndex } from "../../server/search/semantic/vector-index.js";
import { DOCUMENTS, PARAPHRASES, PASSAGE_CHUNK, brownSegments, paraphraseRecords, passageOf, rareWordQuery, sharedContentWords, videoIdOf } from "./paraphrase-corpus.js";

const DIMENSIONS = 512;
const SCALE_TRANSCRIPTS = 500_000;

export interface SemanticFigures {
  embedder: { chunks: number; seconds: number; meanWords: number };
  scale: {
    transcripts: number;
    sampled: number;
    chunksPerTranscript: number;
    chunks: number;
    /** Chunks actually written: the scale's count, or fewer when --semantic-chunks says so. */
    built: number;
    buildSeconds: number;
    vectorsBytes: number;
    /** Lists of the vector index, and those a search without filters reads first. */
    lists: number;
    probes: number;
    queries: number;
    p50: number;
    p99: number;
    exactQueries: number;
    exactP50: number;
    recallAt10: number;
  };
  quality: {
    queries: number;
    videos: number;
    chunks: number;
    sharedWords: number;
    keyword: number;
    semantic: number;
    hybrid: number;
    moment: number;
    buildSeconds: number;
    /** The paraphrases and as many rare-word queries (paraphrase-corpus.ts rareWordQuery), recall@10 by mode. */
    mixed?: { queries: number; keyword: number; semantic: number; hybrid: number };
  };
}

export interface SemanticOptions {
  dir: string;
  seed: number;
  /** Chunks of the vector-search part; undefined: the chunk count of 500,000 transcripts. */
  chunks: number | undefined;
  /** Most seconds of exact searches for the recall check. */
  exactBudgetSeconds: number;
  log: (line: string) => void;
}

export async function measureSemantic(options: SemanticOptions): Promise<SemanticFigures> {
  // The stand-in set is kept for the next run of the same size (writing the scale's takes half an hour here).
  rmSync(join(options.dir, "paraphrase"), { recursive: true, force: true });
  mkdirSync(options.dir, { recursive: true });
  const embedder = await embedderThroughput(options.log);
  const scale = await vectorSearchAtScale(options);
  const quality = await paraphraseRecall(options);
  return { embedder, scale, quality };
}

async function embedderThroughput(log: (line: string) => void): Promise<SemanticFigures["embedder"]> {
  const texts = DOCUMENTS.slice(0, 12).flatMap((file) => chunkSegments(brownSegments(file)).map((chunk) => chunk.text));
  const embedder = new BuiltinEmbedder();
  try {
    await embedder.embed(texts.slice(0, 16));
    const measured = texts.slice(16, 16 + 96);
    const started = performance.now();
    await embedder.embed(measured);
    const seconds = (performance.now() - started) / 1000;
    const meanWords = measured.reduce((n, t) => n + t.split(" ").length, 0) / measured.length;
    log(`semantic: built-in embedder ${measured.length} chunks in ${seconds.toFixed(1)} s`);
    return { chunks: measured.length, seconds, meanWords };
  } finally {
    await embedder.close();
  }
}

/** The seeded corpus of 500,000 videos, every `step`-th video chunked: chunks per video (those without a transcript count as 0). */
function chunksPerTranscript(seed: number, sampled: number): number {
  const corpus = createSyntheticCorpus({ seed, videos: SCALE_TRANSCRIPTS });
  const step = Math.floor(SCALE_TRANSCRIPTS / sampled);
  let chunks = 0;
  for (let i = 0; i < sampled; i++) {
    const video = corpus.videoAt(i * step);
    if (video.transcripts[0]) chunks += chunkSegments(video.transcripts[0].segments).length;
  }
  return chunks / sampled;
}

/** A linear congruential generator's next 32 bits (the high ones are the random ones). */
function lcg(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
}

/** CLUSTER_SIZE vectors a topic, on average: chunks of one subject are near each other, as real embeddings are. */
const CLUSTER_SIZE = 1500;

/**
 * A deterministic stand-in for embeddings: every vector near one of
 * `clusters` centres (plus half of a second one, and noise), as topics make
 * real ones. `stream` picks the noise and the centres drawn, so queries
 * (another stream) are near the set's vectors but not among them.
 */
export function standInVectors(seed: number, clusters: number, stream: number): () => Float32Array {
  const setup = lcg(seed);
  // Normal deviates from a table, indexed by the generator: generating them is the slow part otherwise.
  const normals = new Float32Array(1 << 16);
  for (let i = 0; i < normals.length; i += 2) {
    const u = (setup() + 1) / 4294967297;
    const v = setup() / 4294967296;
    const r = Math.sqrt(-2 * Math.log(u));
    normals[i] = r * Math.cos(2 * Math.PI * v);
    normals[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  const centres = new Float32Array(clusters * DIMENSIONS);
  for (let i = 0; i < centres.length; i++) centres[i] = normals[setup() >>> 16]!;
  const next = lcg(seed * 7919 + stream);
  const out = new Float32Array(DIMENSIONS);
  return () => {
    const a = (next() % clusters) * DIMENSIONS;
    const b = (next() % clusters) * DIMENSIONS;
    for (let d = 0; d < DIMENSIONS; d++) out[d] = centres[a + d]! + 0.5 * centres[b + d]! + 0.9 * normals[next() >>> 16]!;
    return out;
  };
}

/** The stand-in's clusters for a set of `count` chunks. */
export function standInClusters(count: number): number {
  return Math.max(4, Math.round(count / CLUSTER_SIZE));
}

async function vectorSearchAtScale(options: SemanticOptions): Promise<SemanticFigures["scale"]> {
  const sampled = 2000;
  const perTranscript = chunksPerTranscript(options.seed, sampled);
  const chunks = Math.round(perTranscript * SCALE_TRANSCRIPTS);
  const built = options.chunks ?? chunks;
  options.log(`semantic: ${perTranscript.toFixed(2)} chunks per video in ${sampled} sampled, ${chunks.toLocaleString("en-US")} at ${SCALE_TRANSCRIPTS.toLocaleString("en-US")}; searching ${built.toLocaleString("en-US")} stand-in vectors`);
  const dir = join(options.dir, `scale-${built}-${options.seed}`);
  const started = performance.now();
  const reused = keptStandInSet(dir, built);
  if (!reused) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await writeStandInSet(join(dir, VECTORS_FILE), built, Math.max(1, perTranscript), options);
  } else options.log(`semantic: reusing the ${built.toLocaleString("en-US")} stand-in vectors in ${dir}`);
  const buildSeconds = reused ? Number.NaN : (performance.now() - started) / 1000;
  const index = VectorIndex.open(dir)!;
  try {
    const query = standInVectors(options.seed, standInClusters(built), 2);
    // Fewer queries on a set of millions of chunks, where one search takes seconds.
    const queries = Array.from({ length: built > 1_000_000 ? 20 : 100 }, () => Float32Array.from(query()));
    const none = { sql: [], params: [] };
    index.nearest(queries[0]!, SEMANTIC_CHUNKS, none, false);
    const times: number[] = [];
    const approximate: number[][] = [];
    for (const q of queries) {
      const t = performance.now();
      const near = index.nearest(q, SEMANTIC_CHUNKS, none, false);
      times.push(performance.now() - t);
      approximate.push(near.slice(0, 10).map((c) => c.id));
    }
    // Exact search scans every chunk: as many queries as fit the budget (at least 5).
    const exactTimes: number[] = [];
    let hits = 0;
    const budgetEnd = performance.now() + options.exactBudgetSeconds * 1000;
    for (let i = 0; i < queries.length && (i < 5 || performance.now() < budgetEnd); i++) {
      const t = performance.now();
      const exact = new Set(index.nearest(queries[i]!, 10, none, true).map((c) => c.id));
      exactTimes.push(performance.now() - t);
      hits += approximate[i]!.filter((id) => exact.has(id)).length;
    }
    const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
    return {
      transcripts: SCALE_TRANSCRIPTS,
      sampled,
      chunksPerTranscript: perTranscript,
      chunks,
      built,
      buildSeconds,
      vectorsBytes: statSync(join(dir, VECTORS_FILE)).size,
      lists: index.lists,
      probes: PROBES,
      queries: queries.length,
      p50: pct(times, 0.5),
      p99: pct(times, 0.99),
      exactQueries: exactTimes.length,
      exactP50: pct(exactTimes, 0.5),
      recallAt10: hits / (exactTimes.length * 10),
    };
  } finally {
    index.close();
  }
}

/** Whether `dir` holds a complete stand-in set of `count` chunks from an earlier run (its meta is written last), its lists made as now. */
export function keptStandInSet(dir: string, count: number): boolean {
  try {
    const db = new Database(join(dir, VECTORS_FILE), { readonly: true, fileMustExist: true });
    try {
      const meta = new Map(db.prepare("SELECT key, value FROM meta").raw().all() as [string, string][]);
      return meta.get("version") === VECTORS_VERSION && meta.get("chunks") === String(count) && meta.get("lists") === LISTS_METHOD;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/** A vectors.db of `count` stand-in chunks in the set's format (`perTranscript` chunks a video, ranks from 1), staged and put in lists as the build does. */
export async function writeStandInSet(path: string, count: number, perTranscript: number, options: SemanticOptions): Promise<void> {
  const stagingPath = `${path}-staging`;
  rmSync(stagingPath, { force: true });
  const db = new Database(stagingPath);
  try {
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    db.exec(STAGED_CHUNKS_DDL);
    const insert = db.prepare("INSERT INTO chunks (id, video, channel, published, start, seg_from, seg_to, hash, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const vector = standInVectors(options.seed, standInClusters(count), 1);
    const hash = Buffer.alloc(16);
    let lastLog = performance.now();
    db.exec("BEGIN");
    for (let id = 1; id <= count; id++) {
      const video = Math.floor((id - 1) / perTranscript) + 1;
      const channel = video % 707;
      const published = new Date(Date.UTC(2016, 0, 1) + (video % 3650) * 86_400_000).toISOString();
      const quantized = quantizeInt8(vector());
      // Ascending hashes: the hash index grows at its end, as it would not with real ones (a stand-in's cost is not the point).
      hash.writeUInt32BE(id, 12);
      insert.run(id, video, channel, published, 0, 0, 0, hash, vectorBytes(quantized));
      if (id % 50_000 === 0) {
        db.exec("COMMIT; BEGIN");
        if (performance.now() - lastLog > 30_000) {
          lastLog = performance.now();
          options.log(`semantic: ${id.toLocaleString("en-US")}/${count.toLocaleString("en-US")} stand-in vectors written`);
        }
      }
    }
    db.exec("COMMIT");
    const meta = { embedder: { kind: "url" as const, model: "bench-stand-in", dimensions: DIMENSIONS }, version: VECTORS_VERSION, chunks: count, transcripts: Math.ceil(count / perTranscript) };
    await writeListedVectors(db, path, meta, { log: (line) => options.log(`semantic: ${line}`), intervalMs: 30_000 });
  } finally {
    db.close();
    rmSync(stagingPath, { force: true });
  }
}

async function paraphraseRecall(options: SemanticOptions): Promise<SemanticFigures["quality"]> {
  const dir = join(options.dir, "paraphrase", "set");
  const embedder = new BuiltinEmbedder();
  const started = performance.now();
  const { manifest } = await buildArtifacts({
    records: paraphraseRecords(),
    outDir: dir,
    dataset: "paraphrase",
    log: (line) => (line.startsWith("vectors:") ? options.log(`semantic: ${line}`) : undefined),
    vectors: { embedder, cachePath: join(options.dir, "paraphrase", "cache.db"), batch: 32 },
  });
  const buildSeconds = (performance.now() - started) / 1000;
  await embedder.close();
  const catalog = openCatalog({ dir });
  const embedders = new QueryEmbedders({ embedder: "builtin", embeddingsUrl: undefined, embeddingsModel: "", embeddingsApiKey: "", embeddingsDimensions: 0, embeddingsTimeoutMs: 30_000, embeddingsRetries: 0 });
  try {
    const found: Record<SearchMode, number> = { keyword: 0, semantic: 0, hybrid: 0 };
    let moment = 0;
    let sharedWords = 0;
    for (const [file, q] of Object.entries(PARAPHRASES)) {
      sharedWords += sharedContentWords(q, passageOf(file)).length;
      const target = videoIdOf(file);
      const passageStart = chunkSegments(brownSegments(file))[PASSAGE_CHUNK]!.start;
      for (const mode of ["keyword", "semantic", "hybrid"] as const) {
        const page = await searchInMode(catalog, { q, limit: 10, offset: 0, mode }, embedders);
        const hit = page.results.find((h) => h.videoId === target);
        if (hit) found[mode]++;
        if (hit && mode === "semantic" && (hit.startSeconds === passageStart || hit.moments.some((m) => m.startSeconds === passageStart))) moment++;
      }
    }
    const queries = Object.keys(PARAPHRASES).length;
    const rare: Record<SearchMode, number> = { keyword: 0, semantic: 0, hybrid: 0 };
    for (const file of Object.keys(PARAPHRASES)) {
      for (const mode of ["keyword", "semantic", "hybrid"] as const) {
        const page = await searchInMode(catalog, { q: rareWordQuery(file), limit: 10, offset: 0, mode }, embedders);
        if (page.results.some((h) => h.videoId === videoIdOf(file))) rare[mode]++;
      }
    }
    const mixed = (mode: SearchMode) => (found[mode] + rare[mode]) / (2 * queries);
    return {
      mixed: { queries: 2 * queries, keyword: mixed("keyword"), semantic: mixed("semantic"), hybrid: mixed("hybrid") },
      queries,
      videos: manifest.counts.transcripts,
      chunks: manifest.vectors?.chunks ?? 0,
      sharedWords,
      keyword: found.keyword / queries,
      semantic: found.semantic / queries,
      hybrid: found.hybrid / queries,
      moment: moment / queries,
      buildSeconds,
    };
  } finally {
    catalog.close();
    await embedders.close();
  }
}
