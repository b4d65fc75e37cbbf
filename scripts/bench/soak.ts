/**
 * Phase 2b: mixed load for a fixed time (searches, transcripts, bulk,
 * channel listings, stats) from a few concurrent clients, sampling the
 * server's RSS throughout. Bounded by time and by a request count.
 */
import { Pool } from "undici";
import { createRandom } from "../../pipeline/corpus/random.js";
import { searchPath, type BenchQuery } from "./query-set.js";

export interface SoakResult {
  seconds: number;
  requests: number;
  errors: number;
  rssStartMiB: number;
  rssEndMiB: number;
  rssMaxMiB: number;
  /** rssEnd ÷ rssStart − 1. */
  growth: number;
  samples: { t: number; rssMiB: number }[];
}

const MAX_REQUESTS = 5_000_000;
const CLIENTS = 4;

export async function soak(options: {
  origin: string;
  apiKey: string;
  seconds: number;
  queries: readonly BenchQuery[];
  videoIds: readonly string[];
  channelIds: readonly string[];
  rss: () => number;
  seed: number;
}): Promise<SoakResult> {
  const pool = new Pool(options.origin, { connections: CLIENTS });
  const random = createRandom(options.seed, 0x50a);
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
  const samples: SoakResult["samples"] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const rssStart = mib(options.rss());
  samples.push({ t: 0, rssMiB: rssStart });
  const sampler = setInterval(() => samples.push({ t: Math.round((performance.now() - started) / 1000), rssMiB: mib(options.rss()) }), 5000);
  let requests = 0;
  let errors = 0;
  const pickId = () => options.videoIds[random.int(options.videoIds.length)]!;
  const nextRequest = (): { method: "GET" | "POST"; path: string; body?: string } => {
    const roll = random.float();
    if (roll < 0.6) {
      // Searches with a fresh offset now and then, so the result cache sees both hits and misses.
      const query = { ...options.queries[random.int(options.queries.length)]! };
      if (random.chance(0.3)) query.offset = 10 * random.int(30);
      return { method: "GET", path: searchPath(query) };
    }
    if (roll < 0.85) return { method: "GET", path: `/v1/transcript/${pickId()}` };
    if (roll < 0.9) {
      const ids = Array.from({ length: 100 }, pickId);
      return { method: "POST", path: "/v1/transcripts/bulk", body: JSON.stringify({ videoIds: ids, fetchMissing: false }) };
    }
    if (roll < 0.95 && options.channelIds.length > 0) {
      return { method: "GET", path: `/v1/channels/${options.channelIds[random.int(options.channelIds.length)]}/videos?limit=50&offset=${10 * random.int(10)}` };
    }
    return { method: "GET", path: "/v1/stats" };
  };
  const client = async () => {
    while (performance.now() < deadline && requests < MAX_REQUESTS) {
      const r = nextRequest();
      requests++;
      try {
        const res = await pool.request({
          method: r.method,
          path: r.path,
          headers: { "x-api-key": options.apiKey, "content-type": "application/json" },
          ...(r.body ? { body: r.body } : {}),
        });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) errors++;
      } catch {
        errors++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, client));
  } finally {
    clearInterval(sampler);
    await pool.close();
  }
  const rssEnd = mib(options.rss());
  samples.push({ t: Math.round((performance.now() - started) / 1000), rssMiB: rssEnd });
  return {
    seconds: (performance.now() - started) / 1000,
    requests,
    errors,
    rssStartMiB: rssStart,
    rssEndMiB: rssEnd,
    rssMaxMiB: Math.max(...samples.map((s) => s.rssMiB)),
    growth: rssEnd / rssStart - 1,
    samples,
  };
}
