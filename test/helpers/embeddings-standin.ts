/**
 * A stand-in for an embeddings service on loopback: `POST /v1/embeddings`
 * answered in the OpenAI shape with deterministic vectors made from the
 * words of each input (texts sharing words get similar vectors), and ways to
 * make it fail as a real one does: slow, 5xx, vectors of the wrong length.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface StandinBehaviour {
  /** Answer this status (with a short body) instead of vectors. */
  status?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Vectors of this length (default `dimensions`). */
  answerDimensions?: number;
}

export interface EmbeddingsStandin {
  url: string;
  dimensions: number;
  /** Every input text received, in order. */
  received: string[];
  requests: number;
  /** Changes how the next requests are answered (a function: per request, by its number from 1). */
  behave(behaviour: StandinBehaviour | ((request: number) => StandinBehaviour)): void;
  close(): Promise<void>;
}

/** A word's direction: a deterministic unit-ish vector from its hash. */
function wordVector(word: string, dimensions: number): Float64Array {
  const out = new Float64Array(dimensions);
  let seed = createHash("sha256").update(word).digest();
  for (let i = 0; i < dimensions; i++) {
    if (i % 32 === 0 && i > 0) seed = createHash("sha256").update(seed).digest();
    out[i] = (seed[i % 32]! - 127.5) / 127.5;
  }
  return out;
}

/** The stand-in's vector of a text: the sum of its words' vectors, normalised. */
export function standinVector(text: string, dimensions: number): number[] {
  const sum = new Float64Array(dimensions);
  for (const word of text.toLowerCase().match(/[a-z0-9']+/g) ?? []) {
    const v = wordVector(word, dimensions);
    for (let i = 0; i < dimensions; i++) sum[i]! += v[i]!;
  }
  const norm = Math.hypot(...sum) || 1;
  return Array.from(sum, (x) => x / norm);
}

export async function startEmbeddingsStandin(dimensions = 16): Promise<EmbeddingsStandin> {
  let behaviour: StandinBehaviour | ((request: number) => StandinBehaviour) = {};
  const state: EmbeddingsStandin = {
    url: "",
    dimensions,
    received: [],
    requests: 0,
    behave: (next) => (behaviour = next),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const number = ++state.requests;
      const now = typeof behaviour === "function" ? behaviour(number) : behaviour;
      // Counted as they arrive: a client that goes away while the answer waits was still sent them.
      let inputs: string[] = [];
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: string[] | string };
        inputs = Array.isArray(body.input) ? body.input : [body.input];
      } catch {
        inputs = [];
      }
      if (now.status === undefined) state.received.push(...inputs);
      const answer = () => {
        if (req.method !== "POST" || req.url !== "/v1/embeddings") {
          res.writeHead(404).end("not found");
          return;
        }
        if (now.status !== undefined) {
          res.writeHead(now.status, { "content-type": "text/plain" }).end("stand-in failure");
          return;
        }
        const length = now.answerDimensions ?? dimensions;
        const data = inputs.map((text, index) => ({ object: "embedding", index, embedding: standinVector(text, length) }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data }));
      };
      if (now.delayMs) setTimeout(answer, now.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
