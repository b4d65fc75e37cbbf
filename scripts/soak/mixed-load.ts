/**
 * The soak's traffic: `concurrency` workers, each sending one request after
 * another until the deadline, drawn from a weighted mix of search, stored and
 * missing transcripts, bulk, channel listings, stats and bad requests, with
 * several keys. Every answer is tallied by kind and status with its latency;
 * 5xx answers keep a sample of their bodies.
 */
import type { SyntheticCorpus } from "../../pipeline/corpus/synthetic.js";

export interface LoadKeys {
  /** Keys with a limit high enough never to be refused. */
  busy: string[];
  /** A free key with the normal limit: bulk is 403, and it runs into 429. */
  limited: string;
}

export interface LoadOptions {
  origin: string;
  corpus: SyntheticCorpus;
  /** Videos [0, stored) are in the artifact set. */
  stored: number;
  keys: LoadKeys;
  concurrency: number;
  /** Live fetches in flight at once, kept under the server's queue so none is refused 503 busy. */
  maxLiveFetches: number;
  durationMs: number;
  random: () => number;
  onProgress?: (elapsedMs: number, tally: LoadTally) => void;
}

export interface KindTally {
  count: number;
  latencies: number[];
  statuses: Record<string, number>;
}

export interface LoadTally {
  byKind: Record<string, KindTally>;
  serverErrors: { kind: string; status: number; path: string; body: string }[];
  /** Requests that failed below HTTP (connection refused or reset). */
  transportErrors: number;
}

type Request = { kind: string; path: string; init: RequestInit; live?: boolean };

const BAD_REQUESTS: ((key: string) => Request)[] = [
  (key) => ({ kind: "bad", path: "/v1/transcript/not-a-video-id!", init: { headers: { "X-API-Key": key } } }),
  (key) => ({ kind: "bad", path: "/v1/search?q=river&limit=-1&offset=NaN", init: { headers: { "X-API-Key": key } } }),
  (key) => ({ kind: "bad", path: `/v1/search?q=${encodeURIComponent('"unclosed AND (NEAR* ^')}`, init: { headers: { "X-API-Key": key } } }),
  (key) => ({ kind: "bad", path: "/v1/search?q=a&q=b", init: { headers: { "X-API-Key": key } } }),
  (key) => ({ kind: "bad", path: "/v1/channels/UCshort/videos", init: { headers: { "X-API-Key": key } } }),
  () => ({ kind: "bad", path: "/v1/stats", init: {} }),
  () => ({ kind: "bad", path: "/v1/stats", init: { headers: { "X-API-Key": "tsk_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" } } }),
  () => ({ kind: "bad", path: "/v1/nope/../../etc/passwd", init: {} }),
  (key) => ({
    kind: "bad",
    path: "/v1/transcripts/bulk",
    init: { method: "POST", headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: '{"videoIds": [' },
  }),
  (key) => ({
    kind: "bad",
    path: "/v1/transcripts/bulk",
    init: { method: "POST", headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: `${"[".repeat(5000)}${"]".repeat(5000)}` },
  }),
  (key) => ({ kind: "bad", path: "/v1/transcripts/bulk", init: { method: "POST", headers: { "X-API-Key": key, "Content-Type": "text/plain" }, body: "hi" } }),
];

export async function runMixedLoad(options: LoadOptions): Promise<LoadTally> {
  const { corpus, stored, keys, random } = options;
  const tally: LoadTally = { byKind: {}, serverErrors: [], transportErrors: 0 };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const storedIndex = () => Math.floor(random() * stored);
  let nextMissing = stored;
  let liveInFlight = 0;

  const titleWords = (): string => {
    const words = corpus.videoAt(storedIndex()).title.split(/\s+/).filter((w) => /^[\p{L}]{3,}$/u.test(w));
    const count = 1 + Math.floor(random() * 2);
    return words.slice(0, count).join(" ") || "river";
  };
  const busyKey = () => pick(keys.busy);
  const get = (kind: string, path: string, key: string): Request => ({ kind, path, init: { headers: { "X-API-Key": key } } });

  const nextRequest = (): Request => {
    const r = random();
    if (r < 0.38) return get("search", `/v1/search?q=${encodeURIComponent(titleWords())}&limit=${pick([10, 20, 50])}`, busyKey());
    if (r < 0.6) return get("transcript", `/v1/transcript/${corpus.videoIdAt(storedIndex())}`, busyKey());
    if (r < 0.66 && liveInFlight < options.maxLiveFetches && nextMissing < corpus.videoCount) {
      // A video only the stand-in has; fetched live once, stored, then served from storage like the rest.
      return { ...get("missing", `/v1/transcript/${corpus.videoIdAt(nextMissing++)}`, busyKey()), live: true };
    }
    if (r < 0.72) {
      const ids = Array.from({ length: 10 }, () => corpus.videoIdAt(storedIndex()));
      return {
        kind: "bulk",
        path: "/v1/transcripts/bulk",
        init: { method: "POST", headers: { "X-API-Key": busyKey(), "Content-Type": "application/json" }, body: JSON.stringify({ videoIds: ids, fetchMissing: false }) },
      };
    }
    if (r < 0.78) return get("channel", `/v1/channels/${pick(corpus.channels).channelId}/videos?limit=20&offset=${pick([0, 20, 100])}`, busyKey());
    if (r < 0.82) return get("stats", "/v1/stats", busyKey());
    if (r < 0.86) return get("limited-key", pick(["/v1/stats", `/v1/search?q=${encodeURIComponent(titleWords())}`]), keys.limited);
    return pick(BAD_REQUESTS)(busyKey());
  };

  const record = (kind: string, status: string, ms: number) => {
    const entry = (tally.byKind[kind] ??= { count: 0, latencies: [], statuses: {} });
    entry.count++;
    entry.latencies.push(ms);
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
  };

  const deadline = performance.now() + options.durationMs;
  const started = performance.now();
  let lastProgress = started;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const request = nextRequest();
      if (request.live) liveInFlight++;
      const t0 = performance.now();
      try {
        const res = await fetch(`${options.origin}${request.path}`, request.init);
        const body = await res.text();
        record(request.kind, String(res.status), performance.now() - t0);
        if (res.status >= 500 && tally.serverErrors.length < 20) {
          tally.serverErrors.push({ kind: request.kind, status: res.status, path: request.path, body: body.slice(0, 500) });
        }
      } catch {
        tally.transportErrors++;
        record(request.kind, "transport-error", performance.now() - t0);
      } finally {
        if (request.live) liveInFlight--;
      }
      if (options.onProgress && performance.now() - lastProgress > 30_000) {
        lastProgress = performance.now();
        options.onProgress(lastProgress - started, tally);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return tally;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Every answer with status ≥ 500, over all kinds. */
export function count5xx(tally: LoadTally): number {
  let n = 0;
  for (const kind of Object.values(tally.byKind)) for (const [status, c] of Object.entries(kind.statuses)) if (Number(status) >= 500) n += c;
  return n;
}
