/**
 * The build's embedding step: every primary transcript of the database just
 * built is cut into chunks (artifact/vectors/chunks.ts), and each chunk's
 * vector written to `vectors.db` beside it. A chunk whose text the previous
 * set holds under the same embedder is carried over from it by hash, one
 * embedded by a build that did not finish from the vector cache
 * (vector-cache.ts); only the rest is embedded, in batches, each committed to
 * the cache before the next, with a progress line and an ETA. The chunks are
 * staged beside `vectors.db` in transcript order, then written into it list
 * by list (write-lists.ts), and the staging file removed.
 */
import Database from "better-sqlite3";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { decodeSegments } from "../artifact/segments/index.js";
import {
  CARRIED_VECTORS_VERSIONS,
  chunkHash,
  chunkSegments,
  describeEmbedder,
  listHolding,
  quantizeInt8,
  readLists,
  readVectorsMeta,
  sameEmbedder,
  STAGED_CHUNKS_DDL,
  VECTORS_FILE,
  VECTORS_VERSION,
  vectorBytes,
  type Chunk,
  type EmbedderIdentity,
  type StoredLists,
} from "../artifact/vectors/index.js";
import type { Embedder } from "../embeddings/embedder.js";
import { etaProgress } from "./eta-progress.js";
import { VectorCache } from "./vector-cache.js";
import { LISTS_METHOD, writeListedVectors } from "./write-lists.js";

export interface VectorsStepOptions {
  /** The set's database, complete. */
  databasePath: string;
  /** vectors.db to write (must not exist). */
  outPath: string;
  embedder: Embedder;
  /** DATA_DIR/pipeline/vector-cache.db. */
  cachePath: string;
  /** The published set's directory, whose vectors are carried over by hash when its embedder is the same. */
  previousSet?: string | undefined;
  /** Chunks per embedding call. */
  batch: number;
  /** Only the `limit` most viewed transcripts (the demo). */
  limit?: number;
  log: (line: string) => void;
  signal?: AbortSignal | undefined;
  /** Least time between two progress lines (default 10 s). */
  intervalMs?: number;
}

export interface VectorsStepResult {
  embedder: EmbedderIdentity;
  transcripts: number;
  chunks: number;
  /** Chunks sent to the embedder by this run. */
  embedded: number;
  /** Chunks whose vector came from the previous set. */
  carried: number;
  /** Chunks whose vector came from the cache (a build that did not finish). */
  cached: number;
  seconds: number;
}

interface TranscriptRow {
  id: number;
  channel: number;
  published: string;
  script: string;
  timings: Buffer;
}

function transcriptChunks(row: TranscriptRow): Chunk[] {
  const subs = decodeSegments(row.script, row.timings);
  return chunkSegments(subs.map((sub) => ({ start: Number(sub.offset), text: sub.text })));
}

/** A chunk of the previous set: its vector, and the index of its list there (-1 where its lists are not reused). */
interface PreviousChunk {
  vector: Buffer;
  list: number;
}

interface PreviousVectors {
  get(hash: Buffer): PreviousChunk | undefined;
  /** Its lists, where they were made as this build makes them (LISTS_METHOD). */
  lists: StoredLists | undefined;
  close(): void;
}

/** The previous set's vectors by hash, when it has vectors of this embedder. */
function previousVectors(previousSet: string | undefined, identity: EmbedderIdentity): PreviousVectors | undefined {
  const path = previousSet === undefined ? undefined : join(previousSet, VECTORS_FILE);
  if (path === undefined || !existsSync(path)) return undefined;
  const db = new Database(path, { readonly: true });
  let lists: StoredLists | undefined;
  try {
    const meta = readVectorsMeta(db);
    if (!sameEmbedder(meta.embedder, identity) || !CARRIED_VECTORS_VERSIONS.includes(meta.version)) {
      db.close();
      return undefined;
    }
    const method = meta.version === VECTORS_VERSION ? db.prepare("SELECT value FROM meta WHERE key = 'lists'").pluck().get() : undefined;
    if (method === LISTS_METHOD) lists = readLists(db, identity.dimensions);
  } catch {
    db.close();
    return undefined;
  }
  const get = db.prepare<[Buffer], { id: number; vector: Buffer }>("SELECT id, vector FROM chunks WHERE hash = ? LIMIT 1");
  return {
    get: (hash) => {
      const row = get.get(hash);
      return row === undefined ? undefined : { vector: row.vector, list: lists === undefined ? -1 : listHolding(lists, row.id) };
    },
    lists,
    close: () => db.close(),
  };
}

export async function buildVectors(options: VectorsStepOptions): Promise<VectorsStepResult> {
  const started = performance.now();
  const identity = await options.embedder.identity();
  const key = JSON.stringify(identity);
  const source = new Database(options.databasePath, { readonly: true });
  const stagingPath = `${options.outPath}-staging`;
  rmSync(stagingPath, { force: true });
  const out = new Database(stagingPath);
  const cache = new VectorCache(options.cachePath);
  const previous = previousVectors(options.previousSet, identity);
  try {
    out.pragma("journal_mode = OFF");
    out.pragma("synchronous = OFF");
    out.exec(STAGED_CHUNKS_DDL);
    const select = `SELECT v.id AS id, v.channel AS channel, v.published_at AS published, t.script AS script, t.timings AS timings FROM videos v JOIN transcripts t ON t.id = v.transcript`;
    const rows = source.prepare<[number], TranscriptRow>(`${select} ORDER BY v.id LIMIT ?`);
    const byId = source.prepare<[number], TranscriptRow>(`${select} WHERE v.id = ?`);
    const limit = options.limit ?? -1;
    const planned = planChunks(rows.iterate(limit), { out, key, cache, previous, signal: options.signal });
    options.log(
      `vectors: ${planned.chunks.toLocaleString("en-US")} chunks of ${planned.transcripts.toLocaleString("en-US")} transcripts; ${planned.carried.toLocaleString("en-US")} carried over from the previous set, ${planned.cached.toLocaleString("en-US")} from the cache of an unfinished build, ${planned.missing.toLocaleString("en-US")} to embed with ${describeEmbedder(identity)}`,
    );
    const embedded = await embedMissing((video) => byId.get(video), planned, { ...options, out, key, cache, identity });
    await writeListedVectors(out, options.outPath, { embedder: identity, version: VECTORS_VERSION, chunks: planned.chunks, transcripts: planned.transcripts }, { ...options, previousLists: previous?.lists });
    return { embedder: identity, transcripts: planned.transcripts, chunks: planned.chunks, embedded, carried: planned.carried, cached: planned.cached, seconds: (performance.now() - started) / 1000 };
  } finally {
    previous?.close();
    cache.close();
    out.close();
    rmSync(stagingPath, { force: true });
    source.close();
  }
}

interface Plan {
  transcripts: number;
  chunks: number;
  carried: number;
  cached: number;
  missing: number;
  /** Transcripts (video ids) with chunks still to embed. */
  videos: Set<number>;
}

interface PlanContext {
  out: Database.Database;
  key: string;
  cache: VectorCache;
  previous: ReturnType<typeof previousVectors>;
  signal: AbortSignal | undefined;
}

const INSERT_CHUNK = "INSERT INTO chunks (video, channel, published, start, seg_from, seg_to, hash, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

/** The first pass: every chunk's row, with its vector where the previous set or the cache has it. */
function planChunks(rows: Iterable<TranscriptRow>, context: PlanContext): Plan {
  const { out, key, cache, previous } = context;
  const insert = out.prepare(INSERT_CHUNK);
  const carryList = out.prepare("INSERT INTO carried_lists (id, list) VALUES (?, ?)");
  const plan: Plan = { transcripts: 0, chunks: 0, carried: 0, cached: 0, missing: 0, videos: new Set() };
  const empty = Buffer.alloc(0);
  let pending = 0;
  out.exec("BEGIN");
  for (const row of rows) {
    plan.transcripts++;
    for (const chunk of transcriptChunks(row)) {
      const hash = chunkHash(chunk.text);
      const carried = previous?.get(hash);
      const found = carried?.vector ?? cache.get(key, hash);
      if (carried) plan.carried++;
      else if (found) plan.cached++;
      else {
        plan.missing++;
        plan.videos.add(row.id);
      }
      const id = insert.run(row.id, row.channel, row.published, chunk.start, chunk.from, chunk.to, hash, found ?? empty).lastInsertRowid;
      if (carried !== undefined && carried.list >= 0) carryList.run(id, carried.list);
      plan.chunks++;
      if (++pending >= 10_000) {
        out.exec("COMMIT; BEGIN");
        pending = 0;
        context.signal?.throwIfAborted();
      }
    }
  }
  out.exec("COMMIT");
  return plan;
}

/** The second pass: the chunks without a vector embedded in batches, each batch committed to the cache, then to the set. */
async function embedMissing(
  rowOf: (video: number) => TranscriptRow | undefined,
  plan: Plan,
  options: VectorsStepOptions & { out: Database.Database; key: string; cache: VectorCache; identity: EmbedderIdentity },
): Promise<number> {
  const { out, key, cache, embedder, identity } = options;
  if (plan.missing === 0) return 0;
  const progress = etaProgress(options.log, "vectors: embedding", plan.missing, options.intervalMs ?? 10_000);
  const pending = out.prepare<[number], { id: number }>("SELECT id FROM chunks WHERE video = ? AND length(vector) = 0 ORDER BY id").pluck();
  const setVector = out.prepare("UPDATE chunks SET vector = ? WHERE id = ?");
  let queue: { id: number; hash: Buffer; text: string }[] = [];
  let done = 0;
  const flush = async () => {
    const batch = queue;
    queue = [];
    options.signal?.throwIfAborted();
    const vectors = await embedder.embed(batch.map((item) => item.text), options.signal);
    const entries = batch.map((item, i) => {
      const vector = vectors[i]!;
      if (vector.length !== identity.dimensions) throw new Error(`the embedder gave a vector of ${vector.length} dimensions, its set records ${identity.dimensions}`);
      return { ...item, quantized: quantizeInt8(vector) };
    });
    cache.putBatch(key, entries.map((entry) => ({ hash: entry.hash, vector: vectorBytes(entry.quantized) })));
    out.transaction(() => {
      for (const entry of entries) setVector.run(vectorBytes(entry.quantized), entry.id);
    })();
    done += batch.length;
    progress(done);
  };
  const firstChunk = out.prepare<[number], number>("SELECT min(id) FROM chunks WHERE video = ?").pluck();
  for (const video of plan.videos) {
    const row = rowOf(video);
    if (row === undefined) continue;
    const idSet = new Set(pending.all(video) as unknown as number[]);
    const first = firstChunk.get(video)!;
    transcriptChunks(row).forEach((chunk, i) => {
      if (idSet.has(first + i)) queue.push({ id: first + i, hash: chunkHash(chunk.text), text: chunk.text });
    });
    while (queue.length >= options.batch) {
      const rest = queue.splice(options.batch);
      await flush();
      queue = rest;
    }
  }
  if (queue.length > 0) await flush();
  return done;
}
