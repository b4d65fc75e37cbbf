/**
 * The report's rows of the semantic phase (semantic.ts): the built-in
 * embedder's throughput, vector search at the chunk count of 500,000
 * transcripts (stand-in vectors, said in the row), the approximate search's
 * recall against exact search, and recall@10 on the paraphrase set of
 * keyword, semantic and hybrid search side by side. Its queries share no
 * content word with their passages, so keyword search finds none of them and
 * hybrid can at best equal semantic there; the mixed set (those and each
 * passage's rarest words) is where hybrid must beat both.
 */
import type { Row } from "./report.js";
import type { SemanticFigures } from "./semantic.js";

const check = (ok: boolean): "PASS" | "MISS" => (ok ? "PASS" : "MISS");
const num = (v: number) => Math.round(v).toLocaleString("en-US");
const ms = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ms`;
const pct = (v: number) => `${(v * 100).toFixed(0)}%`;

export function semanticRows(f: SemanticFigures, load: string): Row[] {
  const section = `13 search by meaning${load}`;
  const { embedder: e, scale: s, quality: q } = f;
  const full = s.built === s.chunks;
  const at = full ? `${num(s.chunks)} chunks (the chunk count of ${num(s.transcripts)} transcripts: ${s.chunksPerTranscript.toFixed(2)} a video in ${num(s.sampled)} sampled)` : `${num(s.built)} chunks (--semantic-chunks; ${num(s.chunks)} at ${num(s.transcripts)} transcripts)`;
  return [
    { section, metric: `built-in embedder (USE lite, WASM, worker thread): Brown passages of ${e.meanWords.toFixed(0)} words`, value: `${(e.chunks / e.seconds).toFixed(1)} chunks/s (${e.chunks} in ${e.seconds.toFixed(1)} s)`, target: "", verdict: "" },
    { section, metric: `vectors.db of ${at}, stand-in vectors (deterministic, clustered, 512 dims; real ones would take days here)`, value: `${Number.isFinite(s.buildSeconds) ? `written and put in lists in ${s.buildSeconds.toFixed(0)} s` : "kept from an earlier run"}, ${(s.vectorsBytes / 2 ** 20).toFixed(0)} MiB`, target: "", verdict: "" },
    { section, metric: `vector search as the server asks it (500 nearest chunks from the ${s.probes} lists of ${num(s.lists)} whose centroids are nearest, int8 cosine), ${s.queries} queries`, value: `p50 ${ms(s.p50)}, p99 ${ms(s.p99)}`, target: "", verdict: "" },
    { section, metric: `recall@10 of that against exact search (int8 cosine over every chunk, p50 ${ms(s.exactP50)}), ${s.exactQueries} queries`, value: s.recallAt10.toFixed(3), target: "≥ 0.95", verdict: check(s.recallAt10 >= 0.95) },
    { section, metric: `paraphrase set: ${q.queries} hand-written queries sharing ${q.sharedWords} content words with their Brown passages, ${q.videos} videos, ${q.chunks} chunks (embedded in ${q.buildSeconds.toFixed(0)} s with the build)`, value: `recall@10 keyword ${pct(q.keyword)}, semantic ${pct(q.semantic)}, hybrid ${pct(q.hybrid)}`, target: "semantic above keyword, hybrid not below semantic (keyword has nothing to add here)", verdict: check(q.semantic > q.keyword && q.hybrid >= q.semantic) },
    { section, metric: "semantic: the passage itself is the hit's moment or one of its moments", value: pct(q.moment), target: "", verdict: "" },
    ...(q.mixed
      ? [
          {
            section,
            metric: `mixed set: the ${q.queries} paraphrases and, for the same passages, ${q.mixed.queries - q.queries} queries of their two rarest words`,
            value: `recall@10 keyword ${pct(q.mixed.keyword)}, semantic ${pct(q.mixed.semantic)}, hybrid ${pct(q.mixed.hybrid)}`,
            target: "hybrid above both",
            verdict: check(q.mixed.hybrid > q.mixed.keyword && q.mixed.hybrid > q.mixed.semantic),
          },
        ]
      : []),
  ];
}
