import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbedderError } from "../../pipeline/embeddings/embedder.js";
import { embeddingsEndpoint, HttpEmbedder, type HttpEmbedderOptions } from "../../pipeline/embeddings/http-embedder.js";
import { closedPort } from "../helpers/closed-port.js";
import { startEmbeddingsStandin, standinVector, type EmbeddingsStandin } from "../helpers/embeddings-standin.js";

let standin: EmbeddingsStandin;
beforeAll(async () => {
  standin = await startEmbeddingsStandin(16);
});
afterAll(() => standin.close());

function embedder(options: Partial<HttpEmbedderOptions> = {}): HttpEmbedder {
  return new HttpEmbedder({ url: standin.url, model: "stand-in", dimensions: 16, batch: 4, timeoutMs: 2000, retries: 0, backoffMs: 10, ...options });
}

async function failure(promise: Promise<unknown>): Promise<EmbedderError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(EmbedderError);
  return error as EmbedderError;
}

describe("the EMBEDDINGS_URL embedder", () => {
  it("finds the /v1/embeddings endpoint from a base URL, a /v1 URL or the full URL", () => {
    expect(embeddingsEndpoint("http://h:1")).toBe("http://h:1/v1/embeddings");
    expect(embeddingsEndpoint("http://h:1/v1/")).toBe("http://h:1/v1/embeddings");
    expect(embeddingsEndpoint("http://h:1/api/embeddings")).toBe("http://h:1/api/embeddings");
  });

  it("sends texts in batches of EMBEDDINGS_BATCH and gives their vectors back in order", async () => {
    standin.behave({});
    const before = standin.requests;
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
    const vectors = await embedder().embed(texts);
    expect(standin.requests - before).toBe(3);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map((t) => Array.from(Float32Array.from(standinVector(t, 16)))));
  });

  it("learns the vector length from the first answer when EMBEDDINGS_DIMENSIONS is 0, and records model and length", async () => {
    standin.behave({});
    expect(await embedder({ dimensions: 0, model: "m-1" }).identity()).toEqual({ kind: "url", model: "m-1", dimensions: 16 });
  });

  it("names the timeout when the service answers too slowly", async () => {
    standin.behave({ delayMs: 500 });
    const error = await failure(embedder({ timeoutMs: 100 }).embed(["slow"]));
    expect(error.failure).toBe("timeout");
    expect(error.message).toContain("did not answer within 100 ms (EMBEDDINGS_TIMEOUT_MS)");
  });

  it("retries a 5xx and succeeds when the service recovers", async () => {
    const start = standin.requests;
    standin.behave((n) => (n === start + 1 ? { status: 503 } : {}));
    const [vector] = await embedder({ retries: 2 }).embed(["recovers"]);
    expect(Array.from(vector!)).toEqual(Array.from(Float32Array.from(standinVector("recovers", 16))));
    expect(standin.requests - start).toBe(2);
  });

  it("gives up on a 5xx after EMBEDDINGS_RETRIES, naming the status", async () => {
    standin.behave({ status: 500 });
    const start = standin.requests;
    const error = await failure(embedder({ retries: 2 }).embed(["down"]));
    expect(standin.requests - start).toBe(3);
    expect(error.failure).toBe("status");
    expect(error.message).toContain("answered 500");
  });

  it("does not retry a 4xx", async () => {
    standin.behave({ status: 400 });
    const start = standin.requests;
    const error = await failure(embedder({ retries: 2 }).embed(["bad"]));
    expect(standin.requests - start).toBe(1);
    expect(error.message).toContain("answered 400");
  });

  it("refuses vectors of the wrong length, naming both lengths", async () => {
    standin.behave({ answerDimensions: 8 });
    const error = await failure(embedder().embed(["short"]));
    expect(error.failure).toBe("dimensions");
    expect(error.message).toContain("vectors of 8 dimensions, but 16 are expected");
  });

  it("says the service cannot be reached when nothing listens", async () => {
    const error = await failure(embedder({ url: `http://127.0.0.1:${await closedPort()}` }).embed(["nobody"]));
    expect(error.failure).toBe("unreachable");
    expect(error.message).toContain("could not be reached");
  });
});
