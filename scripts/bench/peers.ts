/**
 * Phase 6: the same queries, same result count, in-process (no HTTP on any
 * side, so the comparison is like for like):
 *   - ours: the server's catalog (`openCatalog`), a fresh one opened as the
 *     server opens it (its cache settings from the environment, the search
 *     index and the most viewed transcripts read into memory first), result
 *     cache empty;
 *   - plain SQLite FTS5: `ORDER BY rank` (bm25) + `snippet()` over the same index;
 *   - FlexSearch holding the most-viewed `flexMaxDocs` transcripts in memory,
 *     stop words filtered, snippets by the server's own snippet code.
 * Each pass is bounded by a time budget; ratios use the queries every engine ran.
 */
import Database from "better-sqlite3";
import { Charset, Encoder, Index } from "flexsearch";
import { join } from "node:path";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { loadConfig } from "../../server/config.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { catalogSettings } from "../../server/start/runtime.js";
import { findOccurrences } from "../../server/search/snippet/occurrences.js";
import { parseSearchQuery } from "../../server/search/query.js";
import { makeSnippet } from "../../server/search/snippet/snippet.js";
import { summarize, type LatencySummary } from "./latency.js";
import type { BenchQuery } from "./query-set.js";
import { STOP_WORDS } from "./stop-words.js";

export interface PeerRun {
  name: string;
  /** What the engine holds, e.g. "500000 transcripts" or "50000 most-viewed transcripts in memory". */
  holds: string;
  summary: LatencySummary;
  /** Mean results per query (all engines are asked for the same count). */
  meanResults: number;
  buildSeconds?: number;
  memoryMiB?: number;
}

export interface PeerComparison {
  runs: PeerRun[];
  /** Queries every engine ran (a budget may stop a slow peer early). */
  common: number;
  /** p99 of each peer on the common queries ÷ p99 of ours on the same queries. */
  ratios: { name: string; p50Ratio: number; p99Ratio: number; ourP99: number; peerP99: number }[];
}

type Engine = (query: BenchQuery) => number;

export interface Timed {
  samples: number[];
  results: number[];
  summary: LatencySummary;
}

export function timeEngine(engine: Engine, queries: readonly BenchQuery[], budgetSeconds: number): Timed {
  const samples: number[] = [];
  const results: number[] = [];
  const started = performance.now();
  const deadline = started + budgetSeconds * 1000;
  let truncated = false;
  for (const query of queries) {
    if (performance.now() > deadline) {
      truncated = true;
      break;
    }
    const t0 = performance.now();
    results.push(engine(query));
    samples.push(performance.now() - t0);
  }
  return { samples, results, summary: summarize(samples, 0, (performance.now() - started) / 1000, truncated) };
}

export async function comparePeers(options: {
  artifactsDir: string;
  queries: readonly BenchQuery[];
  flexMaxDocs: number;
  budgetSeconds: number;
  log: (line: string) => void;
}): Promise<PeerComparison> {
  const { queries, budgetSeconds, log } = options;
  const databasePath = join(options.artifactsDir, ARTIFACT_FILES.database);
  const runs: PeerRun[] = [];
  const timings: Timed[] = [];

  // Ours, in-process, fresh catalog, as the server opens it (server/start/runtime.ts, server/main.ts).
  const { timed: oursTimed, transcripts } = await timeOurs(options.artifactsDir, queries, budgetSeconds);
  timings.push(oursTimed);
  runs.push({ name: "ours (in-process)", holds: `${transcripts} transcripts`, summary: oursTimed.summary, meanResults: mean(oursTimed.results) });
  log(`peers: ours p99 ${oursTimed.summary.p99.toFixed(1)} ms`);

  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    db.pragma("mmap_size = 268435456");
    const channelRow = db.prepare("SELECT id FROM channels WHERE channel_id = ?").pluck();
    const maxRankFor = db.prepare("SELECT coalesce(max(id), 0) FROM videos WHERE view_count >= ?").pluck();
    const metadata = db.prepare(
      `SELECT v.video_id AS videoId, v.title, c.title AS channelTitle, v.view_count AS viewCount, t.word_count AS wordCount
       FROM videos v JOIN channels c ON c.id = v.channel JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?`,
    );
    // The minViews bound is a rowid bound for the peers too (rowids are popularity ranks): it favours them.
    const bound = (q: BenchQuery): number => (q.minViews ? (maxRankFor.get(q.minViews) as number) : Number.MAX_SAFE_INTEGER);

    // Plain FTS5: bm25 over every match, sorted by FTS5, snippet() for the page.
    const fts = db.prepare(
      `SELECT rowid AS id, snippet(transcript_fts, 0, '<mark>', '</mark>', '…', 24) AS snippet
       FROM transcript_fts WHERE transcript_fts MATCH ? AND rowid <= ? ORDER BY rank LIMIT ? OFFSET ?`,
    );
    const ftsEngine: Engine = (q) => {
      const parsed = parseSearchQuery(q.q);
      if (!parsed) return 0;
      let expression = `script : (${parsed.expression})`;
      if (q.channel) {
        const channel = channelRow.get(q.channel) as number | undefined;
        if (channel === undefined) return 0;
        expression = `chan : "c${channel}" AND ${expression}`;
      }
      const rows = fts.all(expression, bound(q), q.limit, q.offset) as { id: number; snippet: string }[];
      for (const row of rows) metadata.get(row.id);
      return rows.length;
    };
    const plain = timeEngine(ftsEngine, queries, budgetSeconds);
    timings.push(plain);
    runs.push({ name: "plain SQLite FTS5 (bm25 + snippet())", holds: `${transcripts} transcripts`, summary: plain.summary, meanResults: mean(plain.results) });
    log(`peers: plain FTS5 p99 ${plain.summary.p99.toFixed(1)} ms over ${plain.samples.length} queries`);

    // FlexSearch over the most-viewed transcripts it can hold.
    const limitDocs = Math.min(options.flexMaxDocs, transcripts);
    const rssBefore = process.memoryUsage().rss;
    const buildStarted = performance.now();
    const encoder = new Encoder(Charset.Default);
    encoder.assign({ filter: STOP_WORDS as Set<string> });
    const index = new Index({ tokenize: "strict", resolution: 9, encoder });
    const channelOf = new Map<number, number>();
    const rows = db
      .prepare(
        `SELECT v.id, v.channel, t.script FROM videos v JOIN transcripts t ON t.id = v.transcript ORDER BY v.id LIMIT ?`,
      )
      .iterate(limitDocs) as Iterable<{ id: number; channel: number; script: string }>;
    for (const row of rows) {
      index.add(row.id, row.script);
      channelOf.set(row.id, row.channel);
    }
    const buildSeconds = (performance.now() - buildStarted) / 1000;
    const memoryMiB = Math.round((process.memoryUsage().rss - rssBefore) / 2 ** 20);
    log(`peers: FlexSearch indexed ${limitDocs} transcripts in ${buildSeconds.toFixed(1)} s, +${memoryMiB} MiB RSS`);
    const script = db.prepare("SELECT t.script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?").pluck();
    const flexEngine: Engine = (q) => {
      const parsed = parseSearchQuery(q.q);
      if (!parsed) return 0;
      const filtered = q.channel !== undefined || q.minViews !== undefined;
      const channel = q.channel ? (channelRow.get(q.channel) as number | undefined) : undefined;
      if (q.channel && channel === undefined) return 0;
      const maxRank = bound(q);
      // Filters are applied after the search (FlexSearch's Index has none), so filtered queries over-fetch.
      let ids = index.search(parsed.terms.join(" "), { limit: filtered ? 10_000 : q.offset + q.limit }) as number[];
      if (filtered) ids = ids.filter((id) => id <= maxRank && (channel === undefined || channelOf.get(id) === channel));
      const page = ids.slice(q.offset, q.offset + q.limit);
      for (const id of page) {
        metadata.get(id);
        const text = script.get(id) as string;
        makeSnippet(text, findOccurrences(text, parsed.terms, 64), { maxChars: 200 });
      }
      return page.length;
    };
    const flex = timeEngine(flexEngine, queries, budgetSeconds);
    timings.push(flex);
    runs.push({
      name: "FlexSearch in memory (stop words filtered)",
      holds: `${limitDocs} most-viewed transcripts`,
      summary: flex.summary,
      meanResults: mean(flex.results),
      buildSeconds,
      memoryMiB,
    });
    log(`peers: FlexSearch p99 ${flex.summary.p99.toFixed(1)} ms`);
  } finally {
    db.close();
  }

  const common = Math.min(...timings.map((t) => t.samples.length));
  const ours = summarize(timings[0]!.samples.slice(0, common), 0, 0, false);
  const ratios = runs.slice(1).map((run, i) => {
    const peer = summarize(timings[i + 1]!.samples.slice(0, common), 0, 0, false);
    return { name: run.name, p50Ratio: peer.p50 / ours.p50, p99Ratio: peer.p99 / ours.p99, ourP99: ours.p99, peerP99: peer.p99 };
  });
  return { runs, common, ratios };
}

/** Our catalog in-process, opened fresh as the server opens it (its settings from the environment, memory filled first), over the queries. */
export async function timeOurs(artifactsDir: string, queries: readonly BenchQuery[], budgetSeconds: number): Promise<{ timed: Timed; transcripts: number }> {
  const config = loadConfig({ ...process.env, DATA_DIR: artifactsDir });
  const catalog = openCatalog({ dir: artifactsDir, ...catalogSettings(config) });
  try {
    await catalog.warm();
    const timed = timeEngine(
      (q) => catalog.search({ q: q.q, limit: q.limit, offset: q.offset, channel: q.channel, minViews: q.minViews }).results.length,
      queries,
      budgetSeconds,
    );
    return { timed, transcripts: catalog.manifest.counts.transcripts };
  } finally {
    catalog.close();
  }
}

export function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}
