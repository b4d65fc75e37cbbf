/**
 * The settings table: one row per setting (environment name, kind, default,
 * commands that read it, help), keyed by the field name the code reads it
 * under. A new setting is one new row here; settings.ts derives the rest and
 * holds the rules over several settings (CROSS_CHECKS).
 */
import { countOrAuto, directory, httpOrigin, httpUrl, httpUrls, listOf, nonEmpty, onOff, oneOf, optionalText, optionalUrl, originList, setting, switches, wholeNumber } from "./define.js";

export const PLANS = ["free", "pro"] as const;
export type Plan = (typeof PLANS)[number];

export const DEMO_MODES = ["auto", "off"] as const;
export type DemoMode = (typeof DEMO_MODES)[number];

/** Search's memory helpers (server/search/memory/budget.ts says what each one does). */
export const MEMORY_HELPERS = ["index", "pairs", "texts", "terms", "counts", "prefetch", "videos", "warmup"] as const;
export type MemoryHelper = (typeof MEMORY_HELPERS)[number];

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The rows, keyed by the field name of the typed settings, in the documented table's order. */
export const ROWS = {
  port: setting({
    name: "PORT",
    kind: wholeNumber(0, 65535),
    default: "3000",
    readBy: ["server"],
    help: "TCP port to listen on (0 picks a free port).",
  }),
  host: setting({
    name: "HOST",
    kind: nonEmpty(),
    default: "127.0.0.1",
    readBy: ["server"],
    help: "Interface to bind. Loopback by default because the demo prints a working key at start; set 0.0.0.0 in a container or behind a proxy.",
  }),
  workers: setting({
    name: "WORKERS",
    kind: countOrAuto(1, 256),
    default: "1",
    readBy: ["server"],
    help: "Server processes on the one port over the same DATA_DIR (node:cluster), sharing one rate limit per key, one live fetch per missing transcript and one live store; auto: one per core (1 to 256).",
  }),
  // May hold credentials: never log the value.
  redisUrl: setting({
    name: "REDIS_URL",
    kind: optionalUrl(["redis", "rediss"], "must be a redis:// or rediss:// URL"),
    default: "",
    readBy: ["server"],
    help: "Redis shared by replicas: with it, the rate-limit windows are counted there (exactly, across every replica), and the live-fetch claims and negative cache are kept there; unset: in this machine's memory. Unreachable, or past REDIS_DEADLINE_MS: each process counts and coordinates on its own until it is back (/healthz: degraded).",
  }),
  // May hold credentials: never log the value.
  databaseUrl: setting({
    name: "DATABASE_URL",
    kind: optionalUrl(["postgres", "postgresql"], "must be a postgres:// or postgresql:// URL"),
    default: "",
    readBy: ["server", "pipeline", "keys"],
    help: "PostgreSQL shared by replicas: with it, API keys live there (`npm run keys` writes there; every replica follows within seconds), so does the live store (every replica mirrors it; the pipeline folds and trims it), and one pipeline run at a time holds its advisory lock across machines (exit 3 otherwise); unset: `DATA_DIR/keys.db`, `DATA_DIR/live.db` and the DATA_DIR's run lock.",
  }),
  redisKeyPrefix: setting({
    name: "REDIS_KEY_PREFIX",
    kind: nonEmpty(),
    default: "transcripts:",
    readBy: ["server"],
    help: "Prefix of every Redis key the service writes, so several services can share one Redis.",
  }),
  redisDeadlineMs: setting({
    name: "REDIS_DEADLINE_MS",
    kind: wholeNumber(10, 60_000),
    default: "250",
    readBy: ["server"],
    help: "With REDIS_URL: how long any Redis command may take (10 to 60000). A miss counts as Redis being down, as a refused connection does: the request is counted by the process, /healthz says degraded, and no request asks Redis until a new connection answers within it (tried every 0.2 to 2 s).",
  }),
  dataDir: setting({
    name: "DATA_DIR",
    kind: directory(),
    default: "./data",
    readBy: ["server", "pipeline", "keys"],
    help: "Directory holding the published artifact set (`current/`) and `keys.db`.",
  }),
  demo: setting({
    name: "DEMO",
    kind: oneOf(DEMO_MODES),
    default: "auto",
    readBy: ["server"],
    help: "auto: a DATA_DIR with no published set and no API keys gets the generated demo dataset and a printed `pro` demo key; off: no published set stops the start. The demo key is revoked once another set is served.",
  }),
  rateLimitPerMinute: setting({
    name: "RATE_LIMIT_PER_MINUTE",
    kind: wholeNumber(1, 1_000_000),
    default: "100",
    readBy: ["server"],
    help: "Requests per API key per clock minute (fixed window).",
  }),
  bulkPlans: setting({
    name: "BULK_PLANS",
    kind: listOf(PLANS, "must list plans out of: free, pro"),
    default: "pro",
    readBy: ["server"],
    help: "Comma-separated plans allowed to call POST /v1/transcripts/bulk (free, pro).",
  }),
  maxBodyBytes: setting({
    name: "MAX_BODY_BYTES",
    kind: wholeNumber(1024, 64 * 1024 * 1024),
    default: "65536",
    readBy: ["server"],
    help: "Largest request body accepted; larger bodies get 413 without being read.",
  }),
  logLevel: setting({
    name: "LOG_LEVEL",
    kind: oneOf(LOG_LEVELS),
    default: "info",
    readBy: ["server"],
    help: "Least severe log level written to stdout: debug, info, warn, error or silent.",
  }),
  accessLog: setting({
    name: "ACCESS_LOG",
    kind: onOff(),
    default: "on",
    readBy: ["server"],
    help: "One JSON access-log line per request (on/off).",
  }),
  corsOrigins: setting({
    name: "CORS_ORIGINS",
    kind: originList("must be * or http(s) origins (scheme and host, like https://app.example.com) separated by commas"),
    default: "",
    readBy: ["server"],
    help: "Browser origins allowed to call the API (CORS): comma-separated exact origins such as https://app.example.com, or * for any; empty: CORS off. Credentials are never allowed; preflights need no key.",
  }),
  metrics: setting({
    name: "METRICS",
    kind: onOff(),
    default: "on",
    readBy: ["server"],
    help: "Serve GET /metrics in the Prometheus text format, without an API key (on/off); off: 404. Keep it off the public internet (a proxy rule or a firewall).",
  }),
  shutdownGraceMs: setting({
    name: "SHUTDOWN_GRACE_MS",
    kind: wholeNumber(0, 600_000),
    default: "10000",
    readBy: ["server"],
    help: "On SIGTERM/SIGINT, how long requests already received may take to finish and send their bodies before the connections still open are cut.",
  }),
  requestTimeoutMs: setting({
    name: "REQUEST_TIMEOUT_MS",
    kind: wholeNumber(1, 3_600_000),
    default: "30000",
    readBy: ["server"],
    help: "Time allowed to receive a whole request (node:http requestTimeout).",
  }),
  requestDeadlineMs: setting({
    name: "REQUEST_DEADLINE_MS",
    kind: wholeNumber(100, 3_600_000),
    default: "30000",
    readBy: ["server"],
    help: "Total time a request may take from arrival to answer (100 to 3600000), bounding its waits for live fetches. At the deadline a transcript still waiting for a fetch slot gets 503 upstream_busy and one being fetched 504 deadline_exceeded (that fetch goes on and is stored); a bulk request answers 200 with what it has and an error per unfinished id. Default: that of REQUEST_TIMEOUT_MS, and room for the three YouTube calls of one fetch (watch page, player, captions) at the default YOUTUBE_TIMEOUT_MS.",
  }),
  headersTimeoutMs: setting({
    name: "HEADERS_TIMEOUT_MS",
    kind: wholeNumber(1, 3_600_000),
    default: "10000",
    readBy: ["server"],
    help: "Time allowed to receive the request headers (node:http headersTimeout).",
  }),
  keepAliveTimeoutMs: setting({
    name: "KEEP_ALIVE_TIMEOUT_MS",
    kind: wholeNumber(0, 3_600_000),
    default: "5000",
    readBy: ["server"],
    help: "How long an idle keep-alive connection stays open.",
  }),
  maxConnections: setting({
    name: "MAX_CONNECTIONS",
    kind: wholeNumber(1, 1_000_000),
    default: "1024",
    readBy: ["server"],
    help: "Concurrent connections accepted; further ones are dropped by node:http.",
  }),
  maxConnectionsPerClient: setting({
    name: "MAX_CONNECTIONS_PER_CLIENT",
    kind: wholeNumber(1, 1_000_000),
    default: "256",
    readBy: ["server"],
    help: "Concurrent connections one client address may hold; further ones are dropped. Behind a reverse proxy set it to MAX_CONNECTIONS.",
  }),
  maxHeaderBytes: setting({
    name: "MAX_HEADER_BYTES",
    kind: wholeNumber(1024, 1024 * 1024),
    default: "16384",
    readBy: ["server"],
    help: "Largest request head (request line and headers) accepted; larger ones get 431.",
  }),
  responseCacheMb: setting({
    name: "RESPONSE_CACHE_MB",
    kind: wholeNumber(0, 65536),
    default: "64",
    readBy: ["server"],
    help: "Memory for serialised stored transcripts, so serving one again skips the database and serialisation (0 turns it off).",
  }),
  dbCacheMb: setting({
    name: "DB_CACHE_MB",
    kind: wholeNumber(1, 65536),
    default: "64",
    readBy: ["server"],
    help: "SQLite page cache of the artifact database's main connection (1 to 65536): videos and transcripts, and the full-text index too when SEARCH_MEMORY_MB is 0 or its index helper is off.",
  }),
  searchCacheEntries: setting({
    name: "SEARCH_CACHE_ENTRIES",
    kind: wholeNumber(0, 1000000),
    default: "2000",
    readBy: ["server"],
    help: "Ranked results kept for repeated searches (0 to 1000000 queries; the counts keep twice as many): a repeated query is answered without searching again. 0 turns the cache off, so every query is searched.",
  }),
  searchMemoryMb: setting({
    name: "SEARCH_MEMORY_MB",
    kind: wholeNumber(0, 262144),
    default: "5888",
    readBy: ["server"],
    help: "Memory search reads into at start, so it rarely waits on storage (0 to 262144): 32/46 for the full-text index, 2/46 for the phrase-pair index's longest lists, 7/46 for the most viewed transcripts' text (their timings go in what the index leaves of its share), 1/46 for the term counts of the first of those texts, 4/46 for the build's term counts of every transcript; each share is a ceiling. 0: everything is read from storage as needed. See docs/search.md.",
  }),
  searchMemoryHelpers: setting({
    name: "SEARCH_MEMORY_HELPERS",
    kind: switches(MEMORY_HELPERS),
    default: "all",
    readBy: ["server"],
    help: `For measuring: which of search's memory helpers run (${MEMORY_HELPERS.join(", ")}): all, none, a list (index,texts) or a list to leave out (-prefetch,-videos). Answers are the same either way, only slower.`,
  }),
  searchPhrasePairs: setting({
    name: "SEARCH_PHRASE_PAIRS",
    kind: onOff(),
    default: "on",
    readBy: ["server"],
    help: "Find a multi-word query's phrase matches through the artifact set's index of consecutive word pairs (on/off); off, or in a set built without it: through FTS5's phrase query.",
  }),
  searchWordBitmaps: setting({
    name: "SEARCH_WORD_BITMAPS",
    kind: onOff(),
    default: "on",
    readBy: ["server"],
    help: "Read the artifact set's bitmaps of common words into memory at start (on/off; about 250 MiB at 500,000 transcripts): a search lists the matches of all its words through them; off, or in a set built without them: through FTS5.",
  }),
  bulkFetchConcurrency: setting({
    name: "BULK_FETCH_CONCURRENCY",
    kind: wholeNumber(1, 64),
    default: "4",
    readBy: ["server"],
    help: "Missing transcripts one bulk request fetches from the source at once, capped at half of LIVE_FETCH_CONCURRENCY (at least 1) so single requests always find free slots; a bulk's fetches also wait behind single requests' for a slot.",
  }),
  youtubeOrigin: setting({
    name: "YOUTUBE_ORIGIN",
    kind: httpOrigin("must be an http(s) scheme and host only, like https://www.youtube.com"),
    default: "https://www.youtube.com",
    readBy: ["server", "pipeline"],
    help: "Scheme and host every YouTube URL is built on; point it at the local stand-in for tests and demos.",
  }),
  // May hold credentials: never log the value.
  youtubeProxyUrls: setting({
    name: "YOUTUBE_PROXY_URLS",
    kind: httpUrls("must list http(s) URLs separated by commas"),
    default: "",
    readBy: ["server", "pipeline"],
    help: "Comma-separated http(s) proxy URLs for upstream calls, each an exit with its own pacing and cool-down (YOUTUBE_EXIT_*), one request per fresh connection; empty: the direct route is the one exit.",
  }),
  youtubeTimeoutMs: setting({
    name: "YOUTUBE_TIMEOUT_MS",
    kind: wholeNumber(100, 120_000),
    default: "10000",
    readBy: ["server"],
    help: "Time limit of each upstream call (headers and body), 100 to 120000; past it: 504 upstream_timeout.",
  }),
  youtubeMaxBlockedRetries: setting({
    name: "YOUTUBE_MAX_BLOCKED_RETRIES",
    kind: wholeNumber(0, 10),
    default: "2",
    readBy: ["server", "pipeline"],
    help: "Retries (0 to 10) of a call YouTube blocked (429, unusual-traffic page, captcha, bot check, consent wall, empty caption body), each through an exit that is not cooling down.",
  }),
  youtubeExitRate: setting({
    name: "YOUTUBE_EXIT_RATE",
    kind: countOrAuto(0, 60_000),
    default: "auto",
    readBy: ["server", "pipeline"],
    help: "Upstream requests one exit (a proxy, or the direct route) starts per minute, evenly spaced (0 to 60000; 0: unpaced). auto: 12 when YOUTUBE_ORIGIN is https://www.youtube.com, unpaced for any other origin (the local stand-in).",
  }),
  youtubeExitInFlight: setting({
    name: "YOUTUBE_EXIT_IN_FLIGHT",
    kind: countOrAuto(1, 256),
    default: "auto",
    readBy: ["server", "pipeline"],
    help: "Upstream requests one exit has in flight at most, per process (1 to 256). auto: 2 when YOUTUBE_ORIGIN is https://www.youtube.com, 64 otherwise.",
  }),
  youtubeExitCoolDownSeconds: setting({
    name: "YOUTUBE_EXIT_COOL_DOWN_SECONDS",
    kind: wholeNumber(1, 86_400),
    default: "60",
    readBy: ["server", "pipeline"],
    help: "How long an exit YouTube blocked sends nothing when the block gave no Retry-After (1 to 86400); doubled for each block in a row, plus up to 50 % jitter, up to YOUTUBE_EXIT_COOL_DOWN_MAX_SECONDS. A Retry-After is followed as given.",
  }),
  youtubeExitCoolDownMaxSeconds: setting({
    name: "YOUTUBE_EXIT_COOL_DOWN_MAX_SECONDS",
    kind: wholeNumber(1, 86_400),
    default: "3600",
    readBy: ["server", "pipeline"],
    help: "Longest cool-down of an exit without Retry-After (1 to 86400).",
  }),
  youtubeExitDeadAfter: setting({
    name: "YOUTUBE_EXIT_DEAD_AFTER",
    kind: wholeNumber(1, 100),
    default: "3",
    readBy: ["server", "pipeline"],
    help: "Failures in a row (connection refused, timeout) that take an exit out (1 to 100); it is probed with one request after 30 s, then after twice as long each time the probe fails, up to 10 minutes.",
  }),
  liveFetch: setting({
    name: "LIVE_FETCH",
    kind: onOff(),
    default: "on",
    readBy: ["server"],
    help: "Fetch transcripts that are not stored from YouTube on request (on/off); off: such requests get 404.",
  }),
  liveFetchConcurrency: setting({
    name: "LIVE_FETCH_CONCURRENCY",
    kind: wholeNumber(1, 256),
    default: "8",
    readBy: ["server"],
    help: "Upstream transcript fetches running at once, over all requests (1 to 256).",
  }),
  liveFetchQueue: setting({
    name: "LIVE_FETCH_QUEUE",
    kind: wholeNumber(0, 100_000),
    default: "200",
    readBy: ["server"],
    help: "Fetches that may wait for a slot (0 to 100000); beyond it: 503 upstream_busy with Retry-After.",
  }),
  negativeCacheSeconds: setting({
    name: "NEGATIVE_CACHE_SECONDS",
    kind: wholeNumber(0, 604_800),
    default: "3600",
    readBy: ["server"],
    help: "How long a \"no transcript\" answer (unavailable, disabled, language missing, unplayable, age restricted) is remembered, 0 to 604800; 0 disables.",
  }),
  liveClaimSeconds: setting({
    name: "LIVE_CLAIM_SECONDS",
    kind: wholeNumber(1, 600),
    default: "10",
    readBy: ["server"],
    help: "With REDIS_URL: how long a replica's claim on a live fetch outlives its last renewal (1 to 600); a replica killed mid-fetch frees the video after this long.",
  }),
  livePendingMax: setting({
    name: "LIVE_PENDING_MAX",
    kind: wholeNumber(0, 10_000_000),
    default: "10000",
    readBy: ["server"],
    help: "With DATABASE_URL: live fetches a replica stores in its live.db and queues for PostgreSQL while it is unreachable (0 to 10000000); beyond it (or 0), a fetch is answered 503 live_store_unavailable and not stored.",
  }),
  databaseDeadlineMs: setting({
    name: "DATABASE_DEADLINE_MS",
    kind: wholeNumber(10, 60_000),
    default: "500",
    readBy: ["server"],
    help: "With DATABASE_URL: how long a request waits for PostgreSQL (10 to 60000): a live fetch's commit, and the look for one another replica committed. A miss counts as PostgreSQL being unreachable: the fetch is stored here and queued, /healthz says degraded, and no request asks PostgreSQL until the background mirror (every second) gets an answer.",
  }),
  keyCacheSeconds: setting({
    name: "KEY_CACHE_SECONDS",
    kind: wholeNumber(0, 86_400),
    default: "300",
    readBy: ["server"],
    help: "With DATABASE_URL: how long after PostgreSQL last answered the keys held in memory keep working while it is unreachable (0 to 86400); then, and for keys it never held, 503 key_store_unavailable. Also the longest a revocation made meanwhile goes unseen.",
  }),
  negativeCacheSize: setting({
    name: "NEGATIVE_CACHE_SIZE",
    kind: wholeNumber(1, 10_000_000),
    default: "10000",
    readBy: ["server"],
    help: "Most remembered \"no transcript\" answers (1 to 10000000), least recently used dropped first.",
  }),
  transcriptsUrl: setting({
    name: "TRANSCRIPTS_URL",
    kind: httpUrl("must be an http(s) URL such as http://127.0.0.1:3000"),
    default: "http://127.0.0.1:3000",
    readBy: ["mcp"],
    help: "Base URL of the running service that `npm run mcp -- --stdio` calls (its /mcp endpoint).",
  }),
  // A key: never log the value.
  transcriptsApiKey: setting({
    name: "TRANSCRIPTS_API_KEY",
    kind: optionalText(),
    default: "",
    readBy: ["mcp"],
    help: "The API key `npm run mcp -- --stdio` sends (required by it; create one with `npm run keys -- create`).",
  }),
};
