/**
 * Every setting of the server and the key CLI, read from the environment in
 * this one place and validated with zod. `SETTINGS` is the single table of
 * names, defaults and help: the README reproduces it and a test fails when
 * the README misses a row.
 */
import path from "node:path";
import { z } from "zod";

export interface Setting {
  /** Environment variable name. */
  name: string;
  /** Default as written in the environment ("" when there is none). */
  default: string;
  help: string;
}

export const SETTINGS: readonly Setting[] = [
  { name: "PORT", default: "3000", help: "TCP port to listen on (0 picks a free port)." },
  {
    name: "HOST",
    default: "127.0.0.1",
    help: "Interface to bind. Loopback by default because the demo prints a working key at start; set 0.0.0.0 in a container or behind a proxy.",
  },
  { name: "DATA_DIR", default: "./data", help: "Directory holding the published artifact set (`current/`) and `keys.db`." },
  {
    name: "DEMO",
    default: "auto",
    help: "auto: a DATA_DIR with no published set and no API keys gets the generated demo dataset and a printed `pro` demo key; off: no published set stops the start. The demo key is revoked once another set is served.",
  },
  { name: "RATE_LIMIT_PER_MINUTE", default: "100", help: "Requests per API key per clock minute (fixed window)." },
  { name: "BULK_PLANS", default: "pro", help: "Comma-separated plans allowed to call POST /v1/transcripts/bulk (free, pro)." },
  { name: "MAX_BODY_BYTES", default: "65536", help: "Largest request body accepted; larger bodies get 413 without being read." },
  { name: "LOG_LEVEL", default: "info", help: "Least severe log level written to stdout: debug, info, warn, error or silent." },
  { name: "ACCESS_LOG", default: "on", help: "One JSON access-log line per request (on/off)." },
  { name: "SHUTDOWN_GRACE_MS", default: "10000", help: "On SIGTERM/SIGINT, how long in-flight requests may finish before connections are cut." },
  { name: "REQUEST_TIMEOUT_MS", default: "30000", help: "Time allowed to receive a whole request (node:http requestTimeout)." },
  {
    name: "REQUEST_DEADLINE_MS",
    default: "30000",
    help: "Total time a request may take from arrival to answer (100 to 3600000), bounding its waits for live fetches. At the deadline a transcript still waiting for a fetch slot gets 503 upstream_busy and one being fetched 504 deadline_exceeded (that fetch goes on and is stored); a bulk request answers 200 with what it has and an error per unfinished id. Default: that of REQUEST_TIMEOUT_MS, and room for the three YouTube calls of one fetch (watch page, player, captions) at the default YOUTUBE_TIMEOUT_MS.",
  },
  { name: "HEADERS_TIMEOUT_MS", default: "10000", help: "Time allowed to receive the request headers (node:http headersTimeout)." },
  { name: "KEEP_ALIVE_TIMEOUT_MS", default: "5000", help: "How long an idle keep-alive connection stays open." },
  { name: "MAX_CONNECTIONS", default: "1024", help: "Concurrent connections accepted; further ones are dropped by node:http." },
  {
    name: "MAX_CONNECTIONS_PER_CLIENT",
    default: "256",
    help: "Concurrent connections one client address may hold; further ones are dropped. Behind a reverse proxy set it to MAX_CONNECTIONS.",
  },
  { name: "MAX_HEADER_BYTES", default: "16384", help: "Largest request head (request line and headers) accepted; larger ones get 431." },
  {
    name: "RESPONSE_CACHE_MB",
    default: "64",
    help: "Memory for serialised stored transcripts, so serving one again skips the database and serialisation (0 turns it off).",
  },
  {
    name: "DB_CACHE_MB",
    default: "64",
    help: "SQLite page cache of the artifact database's main connection (1 to 65536): videos and transcripts, and the full-text index too when SEARCH_INDEX_MB is 0.",
  },
  {
    name: "SEARCH_INDEX_MB",
    default: "4096",
    help: "Memory for the full-text index (0 to 65536): read into its own SQLite page cache at start, so search never waits on storage for it; an index larger than this is held in part. 0: read from storage as needed.",
  },
  {
    name: "SEARCH_PAIRS_MB",
    default: "256",
    help: "Memory for the longest lists of the phrase-pair index (0 to 65536), the pairs of common words such as `of_the`: read at start into the full-text index's memory (so only with SEARCH_INDEX_MB above 0), longest first. 0: read from storage as needed.",
  },
  {
    name: "SEARCH_TEXT_MB",
    default: "1024",
    help: "Memory for the text of the most viewed transcripts (0 to 65536), read at start from rank 1 down: ranking and snippets read those from memory. 0: every text is read from the database.",
  },
  {
    name: "SEARCH_READ_THREADS",
    default: "4",
    help: "Worker threads (0 to 64) that read in parallel the transcripts a search is about to read from the database one by one (those not in SEARCH_TEXT_MB). 0: each is read when needed.",
  },
  {
    name: "SEARCH_PHRASE_PAIRS",
    default: "on",
    help: "Find a multi-word query's phrase matches through the artifact set's index of consecutive word pairs (on/off); off, or in a set built without it: through FTS5's phrase query.",
  },
  {
    name: "SEARCH_WORD_BITMAPS",
    default: "on",
    help: "Read the artifact set's bitmaps of common words into memory at start (on/off; about 250 MiB at 500,000 transcripts): a search lists the matches of all its words through them; off, or in a set built without them: through FTS5.",
  },
  {
    name: "BULK_FETCH_CONCURRENCY",
    default: "4",
    help: "Missing transcripts one bulk request fetches from the source at once, capped at half of LIVE_FETCH_CONCURRENCY (at least 1) so single requests always find free slots; a bulk's fetches also wait behind single requests' for a slot.",
  },
  { name: "YOUTUBE_ORIGIN", default: "https://www.youtube.com", help: "Scheme and host every YouTube URL is built on; point it at the local stand-in for tests and demos." },
  { name: "YOUTUBE_PROXY_URLS", default: "", help: "Comma-separated http(s) proxy URLs for upstream calls, rotated per request on a fresh connection; empty: direct." },
  { name: "YOUTUBE_TIMEOUT_MS", default: "10000", help: "Time limit of each upstream call (headers and body), 100 to 120000; past it: 504 upstream_timeout." },
  { name: "YOUTUBE_MAX_BLOCKED_RETRIES", default: "2", help: "Retries (0 to 10) of a call YouTube blocked (bot check, captcha, 429), each through the next proxy, with backoff." },
  { name: "LIVE_FETCH", default: "on", help: "Fetch transcripts that are not stored from YouTube on request (on/off); off: such requests get 404." },
  { name: "LIVE_FETCH_CONCURRENCY", default: "8", help: "Upstream transcript fetches running at once, over all requests (1 to 256)." },
  { name: "LIVE_FETCH_QUEUE", default: "200", help: "Fetches that may wait for a slot (0 to 100000); beyond it: 503 upstream_busy with Retry-After." },
  { name: "NEGATIVE_CACHE_SECONDS", default: "3600", help: "How long a \"no transcript\" answer (unavailable, disabled, language missing, unplayable, age restricted) is remembered, 0 to 604800; 0 disables." },
  { name: "NEGATIVE_CACHE_SIZE", default: "10000", help: "Most remembered \"no transcript\" answers (1 to 10000000), least recently used dropped first." },
];

const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `${name} must be at least ${min}`)
        .max(max, `${name} must be at most ${max}`),
    );

const onOff = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ["on", "off", "true", "false", "1", "0"].includes(v), `${name} must be on or off`)
    .transform((v) => v === "on" || v === "true" || v === "1");

export const PLANS = ["free", "pro"] as const;
export type Plan = (typeof PLANS)[number];

export const DEMO_MODES = ["auto", "off"] as const;
export type DemoMode = (typeof DEMO_MODES)[number];

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const EnvSchema = z.object({
  PORT: integer("PORT", 0, 65535),
  HOST: z.string().trim().min(1, "HOST must not be empty"),
  DATA_DIR: z.string().trim().min(1, "DATA_DIR must not be empty"),
  DEMO: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(DEMO_MODES, { error: `DEMO must be one of: ${DEMO_MODES.join(", ")}` })),
  RATE_LIMIT_PER_MINUTE: integer("RATE_LIMIT_PER_MINUTE", 1, 1_000_000),
  BULK_PLANS: z
    .string()
    .transform((v) => v.split(",").map((p) => p.trim()).filter((p) => p.length > 0))
    .pipe(z.array(z.enum(PLANS, { error: "BULK_PLANS must list plans out of: free, pro" }))),
  MAX_BODY_BYTES: integer("MAX_BODY_BYTES", 1024, 64 * 1024 * 1024),
  LOG_LEVEL: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of: ${LOG_LEVELS.join(", ")}` })),
  ACCESS_LOG: onOff("ACCESS_LOG"),
  SHUTDOWN_GRACE_MS: integer("SHUTDOWN_GRACE_MS", 0, 600_000),
  REQUEST_TIMEOUT_MS: integer("REQUEST_TIMEOUT_MS", 1, 3_600_000),
  REQUEST_DEADLINE_MS: integer("REQUEST_DEADLINE_MS", 100, 3_600_000),
  HEADERS_TIMEOUT_MS: integer("HEADERS_TIMEOUT_MS", 1, 3_600_000),
  KEEP_ALIVE_TIMEOUT_MS: integer("KEEP_ALIVE_TIMEOUT_MS", 0, 3_600_000),
  MAX_CONNECTIONS: integer("MAX_CONNECTIONS", 1, 1_000_000),
  MAX_CONNECTIONS_PER_CLIENT: integer("MAX_CONNECTIONS_PER_CLIENT", 1, 1_000_000),
  MAX_HEADER_BYTES: integer("MAX_HEADER_BYTES", 1024, 1024 * 1024),
  BULK_FETCH_CONCURRENCY: integer("BULK_FETCH_CONCURRENCY", 1, 64),
  RESPONSE_CACHE_MB: integer("RESPONSE_CACHE_MB", 0, 65536),
  DB_CACHE_MB: integer("DB_CACHE_MB", 1, 65536),
  SEARCH_INDEX_MB: integer("SEARCH_INDEX_MB", 0, 65536),
  SEARCH_PAIRS_MB: integer("SEARCH_PAIRS_MB", 0, 65536),
  SEARCH_TEXT_MB: integer("SEARCH_TEXT_MB", 0, 65536),
  SEARCH_READ_THREADS: integer("SEARCH_READ_THREADS", 0, 64),
  SEARCH_PHRASE_PAIRS: onOff("SEARCH_PHRASE_PAIRS"),
  SEARCH_WORD_BITMAPS: onOff("SEARCH_WORD_BITMAPS"),
  YOUTUBE_ORIGIN: z.string().trim().refine(isOrigin, "YOUTUBE_ORIGIN must be an http(s) scheme and host only, like https://www.youtube.com"),
  YOUTUBE_PROXY_URLS: z
    .string()
    .transform((v) => v.split(",").map((u) => u.trim()).filter((u) => u.length > 0))
    .refine((urls) => urls.every(isHttpUrl), "YOUTUBE_PROXY_URLS must list http(s) URLs separated by commas"),
  YOUTUBE_TIMEOUT_MS: integer("YOUTUBE_TIMEOUT_MS", 100, 120_000),
  YOUTUBE_MAX_BLOCKED_RETRIES: integer("YOUTUBE_MAX_BLOCKED_RETRIES", 0, 10),
  LIVE_FETCH: onOff("LIVE_FETCH"),
  LIVE_FETCH_CONCURRENCY: integer("LIVE_FETCH_CONCURRENCY", 1, 256),
  LIVE_FETCH_QUEUE: integer("LIVE_FETCH_QUEUE", 0, 100_000),
  NEGATIVE_CACHE_SECONDS: integer("NEGATIVE_CACHE_SECONDS", 0, 604_800),
  NEGATIVE_CACHE_SIZE: integer("NEGATIVE_CACHE_SIZE", 1, 10_000_000),
});

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function isOrigin(value: string): boolean {
  return isHttpUrl(value) && new URL(value).pathname === "/" && !/[?#]/.test(value);
}

export interface Config {
  port: number;
  host: string;
  /** Absolute. */
  dataDir: string;
  /** Whether a DATA_DIR without a published set gets the demo dataset (auto) or stops the start (off). */
  demo: DemoMode;
  rateLimitPerMinute: number;
  bulkPlans: readonly Plan[];
  maxBodyBytes: number;
  logLevel: LogLevel;
  accessLog: boolean;
  shutdownGraceMs: number;
  requestTimeoutMs: number;
  requestDeadlineMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerClient: number;
  maxHeaderBytes: number;
  bulkFetchConcurrency: number;
  responseCacheMb: number;
  dbCacheMb: number;
  searchIndexMb: number;
  searchPairsMb: number;
  searchTextMb: number;
  searchReadThreads: number;
  searchPhrasePairs: boolean;
  searchWordBitmaps: boolean;
  youtubeOrigin: string;
  /** May hold credentials: never log them. */
  youtubeProxyUrls: readonly string[];
  youtubeTimeoutMs: number;
  youtubeMaxBlockedRetries: number;
  liveFetch: boolean;
  liveFetchConcurrency: number;
  liveFetchQueue: number;
  negativeCacheSeconds: number;
  negativeCacheSize: number;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads the settings from `env` (unset or empty variables take the default).
 * Throws `ConfigError` naming every bad variable; the message never repeats
 * the bad value, which might be a secret pasted into the wrong variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {};
  for (const setting of SETTINGS) {
    const value = env[setting.name];
    raw[setting.name] = value === undefined || value.trim() === "" ? setting.default : value;
  }
  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? "environment");
      return `  ${name}: ${issue.message.startsWith(name) ? issue.message.slice(name.length + 1) : issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const v = parsed.data;
  if (v.HEADERS_TIMEOUT_MS > v.REQUEST_TIMEOUT_MS) {
    throw new ConfigError("Invalid configuration:\n  HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS");
  }
  return {
    port: v.PORT,
    host: v.HOST,
    dataDir: path.resolve(v.DATA_DIR),
    demo: v.DEMO,
    rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE,
    bulkPlans: [...new Set(v.BULK_PLANS)],
    maxBodyBytes: v.MAX_BODY_BYTES,
    logLevel: v.LOG_LEVEL,
    accessLog: v.ACCESS_LOG,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    requestDeadlineMs: v.REQUEST_DEADLINE_MS,
    headersTimeoutMs: v.HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: v.KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: v.MAX_CONNECTIONS,
    maxConnectionsPerClient: v.MAX_CONNECTIONS_PER_CLIENT,
    maxHeaderBytes: v.MAX_HEADER_BYTES,
    bulkFetchConcurrency: v.BULK_FETCH_CONCURRENCY,
    responseCacheMb: v.RESPONSE_CACHE_MB,
    dbCacheMb: v.DB_CACHE_MB,
    searchIndexMb: v.SEARCH_INDEX_MB,
    searchPairsMb: v.SEARCH_PAIRS_MB,
    searchTextMb: v.SEARCH_TEXT_MB,
    searchReadThreads: v.SEARCH_READ_THREADS,
    searchPhrasePairs: v.SEARCH_PHRASE_PAIRS,
    searchWordBitmaps: v.SEARCH_WORD_BITMAPS,
    youtubeOrigin: new URL(v.YOUTUBE_ORIGIN).origin,
    youtubeProxyUrls: v.YOUTUBE_PROXY_URLS,
    youtubeTimeoutMs: v.YOUTUBE_TIMEOUT_MS,
    youtubeMaxBlockedRetries: v.YOUTUBE_MAX_BLOCKED_RETRIES,
    liveFetch: v.LIVE_FETCH,
    liveFetchConcurrency: v.LIVE_FETCH_CONCURRENCY,
    liveFetchQueue: v.LIVE_FETCH_QUEUE,
    negativeCacheSeconds: v.NEGATIVE_CACHE_SECONDS,
    negativeCacheSize: v.NEGATIVE_CACHE_SIZE,
  };
}
