/** Known-item recall@10 at the HTTP level: does the sampled transcript come back among the first 10 results? */
import { Pool } from "undici";
import type { KnownItem } from "./known-items.js";

export interface RecallResult {
  items: number;
  /** Share found in the top 10 with the words unquoted (as typed). */
  recallAt10: number;
  /** Share found in the top 10 with the words quoted as a phrase. */
  phraseRecallAt10: number;
  /** Share found at rank 1, unquoted. */
  recallAt1: number;
  /** Misses among fragments that start beyond the first quarter of their transcript. */
  missesPastFirstQuarter: number;
  misses: number;
  /** A few misses, for the report. */
  examples: { videoId: string; words: string; position: number; total: number }[];
}

export async function measureRecall(origin: string, apiKey: string, items: readonly KnownItem[], budgetSeconds: number): Promise<RecallResult> {
  const pool = new Pool(origin, { connections: 1 });
  const deadline = performance.now() + budgetSeconds * 1000;
  const rankOf = async (q: string, videoId: string): Promise<{ rank: number; total: number }> => {
    const path = `/v1/search?${new URLSearchParams({ q, limit: "10" }).toString()}`;
    const res = await pool.request({ method: "GET", path, headers: { "x-api-key": apiKey } });
    const body = (await res.body.json()) as { results?: { videoId: string }[]; pagination?: { total: number } };
    const rank = (body.results ?? []).findIndex((r) => r.videoId === videoId);
    return { rank, total: body.pagination?.total ?? 0 };
  };
  let hits = 0;
  let phraseHits = 0;
  let first = 0;
  let done = 0;
  let missesPastFirstQuarter = 0;
  const examples: RecallResult["examples"] = [];
  try {
    for (const item of items) {
      if (performance.now() > deadline) break;
      const plain = await rankOf(item.words, item.videoId);
      const quoted = await rankOf(`"${item.words}"`, item.videoId);
      done++;
      if (plain.rank >= 0) hits++;
      if (plain.rank === 0) first++;
      if (quoted.rank >= 0) phraseHits++;
      if (plain.rank < 0) {
        if (item.position > 0.25) missesPastFirstQuarter++;
        if (examples.length < 5) examples.push({ videoId: item.videoId, words: item.words, position: item.position, total: plain.total });
      }
    }
  } finally {
    await pool.close();
  }
  return {
    items: done,
    recallAt10: hits / Math.max(1, done),
    phraseRecallAt10: phraseHits / Math.max(1, done),
    recallAt1: first / Math.max(1, done),
    misses: done - hits,
    missesPastFirstQuarter,
    examples,
  };
}
