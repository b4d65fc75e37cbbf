/**
 * Run as a child process by build-vectors.test.ts, to be killed with SIGKILL
 * mid-step: builds an artifact set of `vectorRecords(VIDEOS)` into OUT_DIR
 * with the EMBEDDINGS_URL embedder, its vector cache at CACHE_PATH, printing
 * each log line.
 */
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { HttpEmbedder } from "../../pipeline/embeddings/http-embedder.js";
import { vectorRecords } from "./vector-records.js";

const env = process.env;
await buildArtifacts({
  records: vectorRecords(Number(env.VIDEOS)),
  outDir: env.OUT_DIR!,
  dataset: "test",
  log: (line) => process.stdout.write(line + "\n"),
  vectors: {
    embedder: new HttpEmbedder({ url: env.EMBEDDINGS_URL!, model: "stand-in", dimensions: 16, batch: 2, timeoutMs: 5000, retries: 0 }),
    cachePath: env.CACHE_PATH!,
    batch: 2,
    intervalMs: 0,
  },
});
