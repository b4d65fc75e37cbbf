/**
 * Phase `pg-peer`: PostgreSQL full-text search as a peer on the same corpus
 * and queries. The transcripts (videoId, title, text, viewCount, channel) are
 * copied from the artifact set, most viewed first, into a scratch database
 * with multi-row INSERTs in batches (enough: the load is timed, and no COPY
 * helper is needed); a stored `tsvector` column (title weight A, text D,
 * `simple` configuration: no stemming and no stop words, as our index) gets a
 * GIN index. Each query: `websearch_to_tsquery`, filters as WHERE clauses,
 * `ts_rank` order (ties by views), then `ts_headline` for the page's rows
 * only. Timed per query over one loopback connection, against our catalog
 * in-process on the same queries; the scratch database is dropped at the end.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import pg from "pg";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { summarize, type LatencySummary } from "./latency.js";
import { mean, timeOurs } from "./peers.js";
import type { BenchQuery } from "./query-set.js";

export interface PgPeerFigures {
  /** Transcripts loaded (all, or the most viewed `--pg-max-docs`). */
  docs: number;
  capped: boolean;
  loadSeconds: number;
  indexSeconds: number;
  /** The scratch database's size once indexed. */
  databaseBytes: number;
  serverVersion: string;
  pg: LatencySummary;
  ours: LatencySummary;
  meanResults: number;
  ourMeanResults: number;
  /** Queries both ran (the budget may stop PostgreSQL early). */
  common: number;
  p50Ratio: number;
  p99Ratio: number;
}

const BATCH = 500;

/** The page of one query: ranked ids first, then the headline of those rows only. */
export function pgSearchStatement(query: BenchQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [query.q];
  const where = ["tsv @@ query"];
  if (query.channel !== undefined) {
    values.push(query.channel);
    where.push(`channel_id = $${values.length}`);
  }
  if (query.minViews !== undefined) {
    values.push(query.minViews);
    where.push(`view_count >= $${values.length}`);
  }
  values.push(query.limit, query.offset);
  const limit = `$${values.length - 1}`;
  const offset = `$${values.length}`;
  return {
    text: `WITH q AS (SELECT websearch_to_tsquery('simple', $1) AS query),
      page AS (SELECT t.id, ts_rank(t.tsv, q.query) AS rank, t.view_count FROM transcripts t, q WHERE ${where.join(" AND ")}
               ORDER BY rank DESC, t.view_count DESC LIMIT ${limit} OFFSET ${offset})
      SELECT t.video_id, t.title, t.channel_id, t.view_count,
             ts_headline('simple', t.text, q.query, 'StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=15, MaxFragments=1') AS snippet
      FROM page JOIN transcripts t ON t.id = page.id, q ORDER BY page.rank DESC, page.view_count DESC`,
    values,
  };
}

export async function comparePostgres(options: {
  artifactsDir: string;
  queries: readonly BenchQuery[];
  /** A database on the server to connect to for CREATE/DROP DATABASE. */
  adminUrl: string;
  /** Most transcripts loaded; undefined for all. */
  maxDocs: number | undefined;
  budgetSeconds: number;
  log: (line: string) => void;
}): Promise<PgPeerFigures> {
  const { log } = options;
  const name = `bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: options.adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(options.adminUrl);
    url.pathname = `/${name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return await loadAndQuery(client, options, log);
    } finally {
      await client.end();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function loadAndQuery(
  client: pg.Client,
  options: { artifactsDir: string; queries: readonly BenchQuery[]; maxDocs: number | undefined; budgetSeconds: number },
  log: (line: string) => void,
): Promise<PgPeerFigures> {
  const serverVersion = ((await client.query("SHOW server_version")).rows[0] as { server_version: string }).server_version;
  await client.query(`CREATE TABLE transcripts (
    id integer PRIMARY KEY,
    video_id text NOT NULL,
    title text NOT NULL,
    channel_id text NOT NULL,
    view_count bigint NOT NULL,
    text text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', text), 'D')) STORED
  )`);
  const sqlite = new Database(join(options.artifactsDir, ARTIFACT_FILES.database), { readonly: true, fileMustExist: true });
  const loadStarted = performance.now();
  let docs = 0;
  let total = 0;
  try {
    total = sqlite.prepare("SELECT count(*) FROM videos WHERE transcript IS NOT NULL").pluck().get() as number;
    const rows = sqlite
      .prepare(
        `SELECT v.id, v.video_id, v.title, c.channel_id, v.view_count, t.script FROM videos v
         JOIN transcripts t ON t.id = v.transcript JOIN channels c ON c.id = v.channel ORDER BY v.id LIMIT ?`,
      )
      .raw()
      .iterate(options.maxDocs ?? -1) as Iterable<unknown[]>;
    let batch: unknown[][] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const placeholders = batch.map((_, i) => `(${[1, 2, 3, 4, 5, 6].map((k) => `$${i * 6 + k}`).join(", ")})`).join(", ");
      await client.query(`INSERT INTO transcripts (id, video_id, title, channel_id, view_count, text) VALUES ${placeholders}`, batch.flat());
      docs += batch.length;
      batch = [];
    };
    // better-sqlite3's iterator is synchronous; awaiting the INSERT between its steps is allowed (the statement stays open).
    for (const row of rows) {
      batch.push(row);
      if (batch.length === BATCH) {
        await flush();
        if (docs % 50_000 === 0) log(`pg-peer: ${docs} transcripts loaded`);
      }
    }
    await flush();
  } finally {
    sqlite.close();
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const indexStarted = performance.now();
  // As PostgreSQL's docs advise for building a large index (this session only; the server default is 64 MB).
  await client.query("SET maintenance_work_mem = '1GB'");
  await client.query("CREATE INDEX transcripts_tsv ON transcripts USING gin (tsv)");
  await client.query("CREATE INDEX transcripts_channel ON transcripts (channel_id)");
  await client.query("ANALYZE transcripts");
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  const databaseBytes = Number(((await client.query("SELECT pg_database_size(current_database()) AS bytes")).rows[0] as { bytes: string }).bytes);
  log(`pg-peer: ${docs} transcripts loaded in ${loadSeconds.toFixed(1)} s, indexed in ${indexSeconds.toFixed(1)} s`);

  const samples: number[] = [];
  const results: number[] = [];
  const started = performance.now();
  const deadline = started + options.budgetSeconds * 1000;
  let truncated = false;
  for (const query of options.queries) {
    if (performance.now() > deadline) {
      truncated = true;
      break;
    }
    const statement = pgSearchStatement(query);
    const t0 = performance.now();
    const answer = await client.query(statement);
    samples.push(performance.now() - t0);
    results.push(answer.rowCount ?? 0);
  }
  const pgSummary = summarize(samples, 0, (performance.now() - started) / 1000, truncated);
  log(`pg-peer: PostgreSQL p99 ${pgSummary.p99.toFixed(1)} ms over ${samples.length} queries`);

  const { timed: ours } = await timeOurs(options.artifactsDir, options.queries, options.budgetSeconds);
  const common = Math.min(samples.length, ours.samples.length);
  const pgCommon = summarize(samples.slice(0, common), 0, 0, false);
  const ourCommon = summarize(ours.samples.slice(0, common), 0, 0, false);
  return {
    docs,
    capped: docs < total,
    loadSeconds,
    indexSeconds,
    databaseBytes,
    serverVersion,
    pg: pgSummary,
    ours: ours.summary,
    meanResults: mean(results),
    ourMeanResults: mean(ours.results),
    common,
    p50Ratio: pgCommon.p50 / ourCommon.p50,
    p99Ratio: pgCommon.p99 / ourCommon.p99,
  };
}
