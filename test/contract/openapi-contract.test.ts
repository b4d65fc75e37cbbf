/**
 * The contract test: every operation of the served OpenAPI document is called
 * through a client generated from that document (openapi-typescript types,
 * openapi-fetch), against real servers on port 0 over a small artifact set,
 * with live fetches going to the loopback YouTube stand-in; and every
 * answer (status, headers, body) is validated against the document with ajv.
 *
 * It iterates over what the document declares: each documented (operation,
 * status, problem code) must be provoked by a recipe below or be listed in
 * NOT_PROVOKED with the reason, and each value of an enum query parameter is
 * requested. A code, status or parameter value added to the document without
 * a way to show it fails here.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import createClient from "openapi-fetch";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openKeyStore } from "../../server/auth/key-store.js";
import type { Fault } from "../../scripts/youtube-standin/faults.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { clientTypes, CLIENT_TYPES_FILE } from "../../scripts/openapi.js";
import { artifactRecords, fresh, STORED, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { publishRecords, startLiveServer, type LiveServer } from "../live/helpers/live-server.js";
import { HttpEmbedder } from "../../pipeline/embeddings/http-embedder.js";
import { startEmbeddingsStandin, type EmbeddingsStandin } from "../helpers/embeddings-standin.js";
import { CHANNEL_A, CHANNEL_UNKNOWN, fixtureRecords, IDS } from "../server/helpers/fixture-records.js";
import type { paths } from "./api-types.js";
import { roomInThisMinute } from "../helpers/rate-window.js";

type Json = any;
type ServerName = "main" | "tight" | "offline";
type KeyKind = "pro" | "free" | "expired" | "revoked" | "none" | "fresh";

/** One request, described independently of the operation's path template. */
interface Call {
  server?: ServerName;
  key?: KeyKind;
  path?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON value, or a raw string sent as it is. */
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

interface Operation {
  id: string;
  method: "get" | "post";
  path: string;
  spec: Json;
}

/** Documented outcomes no request to a working server can provoke, and where they are shown instead. */
const NOT_PROVOKED: Record<string, string> = {
  "500 internal_error": "a bug by definition; test/server/errors.test.ts provokes one with a failing transcript source",
};

/** A value for each path and query parameter the document names, for the calls that should succeed. */
const SAMPLE: Record<string, string> = {
  // Stored with a manual and an auto-generated English track: every value of track answers 200.
  videoId: IDS.chapters,
  channelId: CHANNEL_A,
  q: "river",
  limit: "2",
  offset: "0",
  channel: CHANNEL_A,
  minViews: "0",
  lang: "en",
  includeMetadata: "true",
};

let standin: Standin;
/** The embeddings service of the main server (its set has vectors): main answers every mode; tight's set has none; offline's has, but offline has no embedder. */
let embeddings: EmbeddingsStandin;
const servers = {} as Record<ServerName, LiveServer>;
const keys = {} as Record<ServerName, Record<Exclude<KeyKind, "none" | "fresh">, string>>;
let doc: Json;
let ajv: Ajv2020;
let operations: Operation[];
/** `operationId status code` of every answer validated. */
const observed = new Set<string>();
/** The last of them, for the message when a recipe gets another outcome than its own. */
let lastOutcome = "";

beforeAll(async () => {
  standin = await startStandin({ corpus: upstreamCorpus() });
  embeddings = await startEmbeddingsStandin(16);
  const records = [...artifactRecords(), ...fixtureRecords()];
  const withVectors = async (dataDir: string) => {
    const embedder = new HttpEmbedder({ url: embeddings.url, model: "stand-in", dimensions: 16, batch: 32, timeoutMs: 5000, retries: 0 });
    await publishRecords(dataDir, records, 0, { embedder, cachePath: `${dataDir}/pipeline/vector-cache.db`, batch: 32 });
  };
  const embeddingsEnv = { EMBEDDINGS_URL: embeddings.url, EMBEDDINGS_MODEL: "stand-in", EMBEDDINGS_RETRIES: "0" };
  [servers.main, servers.tight, servers.offline] = await Promise.all([
    // YOUTUBE_TIMEOUT_MS is 3000 (startLiveServer's): long enough for the 20 MB a huge answer is read up to, on a busy machine.
    startLiveServer({ standin, records, prepare: withVectors, env: embeddingsEnv }),
    startLiveServer({
      standin,
      records,
      env: { RATE_LIMIT_PER_MINUTE: "5", REQUEST_DEADLINE_MS: "700", LIVE_FETCH_CONCURRENCY: "1", MAX_BODY_BYTES: "1024" },
    }),
    startLiveServer({ standin, records, prepare: withVectors, env: { LIVE_FETCH: "off" } }),
  ]);
  for (const name of ["main", "tight", "offline"] as const) {
    const store = openKeyStore({ dataDir: servers[name].dataDir });
    const revoked = store.create({ plan: "pro", name: "revoked" });
    store.revoke(revoked.record.keyId);
    keys[name] = {
      pro: servers[name].key,
      free: store.create({ plan: "free", name: "free" }).key,
      expired: store.create({ plan: "pro", name: "expired", expiresAt: "2001-01-01T00:00:00.000Z" }).key,
      revoked: revoked.key,
    };
    store.close();
  }
  const res = await fetch(`${servers.main.baseUrl}/v1/openapi.json`);
  doc = await res.json();
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...doc, $id: "openapi.json" });
  operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, spec]) => ({ id: spec.operationId as string, method: method as Operation["method"], path, spec })),
  );
});

afterAll(async () => {
  standin?.setFault(null);
  await Promise.all(Object.values(servers).map((s) => s.close()));
  await standin?.close();
  await embeddings?.close();
});

// ---------------------------------------------------------------- calling and validating

function client(server: ServerName) {
  return createClient<paths>({ baseUrl: servers[server].baseUrl });
}

function keyFor(server: ServerName, kind: KeyKind): string | undefined {
  if (kind === "none") return undefined;
  if (kind === "fresh") {
    const store = openKeyStore({ dataDir: servers[server].dataDir });
    try {
      return store.create({ plan: "pro", name: "fresh" }).key;
    } finally {
      store.close();
    }
  }
  return keys[server][kind];
}

/** Sends `call` to `op` through the typed client, validates the answer against the document, and records the outcome. */
async function send(op: Operation, call: Call = {}): Promise<Answer> {
  const server = call.server ?? "main";
  const key = keyFor(server, call.key ?? (op.spec.security === undefined ? "pro" : "none"));
  const headers: Record<string, string> = { ...(key === undefined ? {} : { "X-API-Key": key }), ...call.headers };
  const init: Json = {
    params: { path: call.path ?? samplePath(op), query: call.query ?? {} },
    headers,
    parseAs: "text",
  };
  if (call.rawBody !== undefined) {
    init.body = call.rawBody;
    init.bodySerializer = (body: string) => body;
  } else if (call.body !== undefined) init.body = call.body;
  const fetcher = client(server) as Json;
  const result = await fetcher[op.method.toUpperCase()](op.path, init);
  // openapi-fetch hands success bodies over as text (parseAs), problem bodies parsed when they are JSON.
  const raw: unknown = result.data ?? result.error;
  return validated(op, result.response as Response, typeof raw === "string" ? raw : raw === undefined ? "" : JSON.stringify(raw));
}

function samplePath(op: Operation): Record<string, string> {
  const params = ((op.spec.parameters ?? []) as Json[]).filter((p) => p.in === "path");
  return Object.fromEntries(params.map((p) => [p.name, sampleOf(p.name)]));
}

function sampleQuery(op: Operation): Record<string, string> {
  const params = ((op.spec.parameters ?? []) as Json[]).filter((p) => p.in === "query" && p.required);
  return Object.fromEntries(params.map((p) => [p.name, sampleOf(p.name)]));
}

function sampleOf(name: string): string {
  const value = SAMPLE[name];
  if (value === undefined) throw new Error(`the document has a parameter ${name}: give it a sample value in SAMPLE`);
  return value;
}

function resolve(node: Json): Json {
  if (node?.$ref === undefined) return node;
  return (node.$ref as string)
    .replace(/^#\//, "")
    .split("/")
    .reduce((at: Json, part: string) => at?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

function pointer(...parts: string[]): string {
  return `openapi.json#/${parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
}

/** Every header name the document declares somewhere: one of them on an answer must be declared for that answer. */
function documentedHeaderNames(): Set<string> {
  const names = new Set<string>(Object.keys(doc.components.headers ?? {}).map((n) => n.toLowerCase()));
  for (const op of operations) for (const response of Object.values(op.spec.responses) as Json[]) for (const n of Object.keys(response.headers ?? {})) names.add(n.toLowerCase());
  return names;
}

function validated(op: Operation, res: Response, text: string): Answer {
  const status = String(res.status);
  const where = `${op.method.toUpperCase()} ${op.path} → ${status} ${text.slice(0, 300)}`;
  const response = resolve(op.spec.responses[status]);
  expect(response, `undocumented status: ${where}`).toBeDefined();

  // Headers: each required one present, each present one declared here and matching its schema.
  const declared = Object.fromEntries(Object.entries((response.headers ?? {}) as Record<string, Json>).map(([n, h]) => [n.toLowerCase(), resolve(h)]));
  for (const [name, header] of Object.entries(declared)) {
    const value = res.headers.get(name);
    if (header.required) expect(value, `required header ${name}: ${where}`).not.toBeNull();
    if (value === null) continue;
    const typed = header.schema?.type === "integer" && /^-?\d+$/.test(value) ? Number(value) : value;
    const check = ajv.compile(header.schema ?? {});
    expect(check(typed), `header ${name}: ${value} (${ajv.errorsText(check.errors)}): ${where}`).toBe(true);
  }
  for (const name of documentedHeaderNames()) {
    if (res.headers.get(name) !== null) expect(declared[name], `header ${name} sent but not documented for ${where}`).toBeDefined();
  }

  // Body: its media type is documented for this status, and it matches the schema.
  let body: Json;
  const contentType = res.headers.get("content-type")?.split(";")[0]?.trim();
  if (text === "") {
    expect(response.content === undefined || res.status === 304, `empty body where one is documented: ${where}`).toBe(true);
  } else {
    expect(contentType, where).toBeDefined();
    const media = response.content?.[contentType!];
    expect(media, `undocumented media type ${contentType}: ${where}`).toBeDefined();
    body = /json/.test(contentType!) ? JSON.parse(text) : text;
    const check = ajv.getSchema(pointer("paths", op.path, op.method, "responses", status, "content", contentType!, "schema"));
    expect(check, where).toBeDefined();
    expect(check!(body), `${ajv.errorsText(check!.errors)}: ${where}`).toBe(true);
  }
  const code = contentType === "application/problem+json" ? String(body.code) : "";
  observed.add((lastOutcome = `${op.id} ${status} ${code}`.trim()));
  return { status: res.status, headers: res.headers, body, text };
}

function op(id: string): Operation {
  const found = operations.find((o) => o.id === id);
  if (found === undefined) throw new Error(`no operation ${id} in the document`);
  return found;
}

async function withFault<T>(fault: Fault, run: () => Promise<T>): Promise<T> {
  standin.setFault(fault);
  try {
    return await run();
  } finally {
    standin.setFault(null);
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let freshIds = 0;
/** A video only YouTube has, not asked for before (failures are not remembered, but successes are stored). */
function freshId(): string {
  return fresh(freshIds++).videoId;
}

// ---------------------------------------------------------------- how each documented outcome is provoked

type Recipe = (op: Operation) => Promise<Answer | void>;

const live = (fault: Fault): Recipe => (o) => withFault(fault, () => send(o, { path: { videoId: freshId() } }));
const video = (videoId: string, server: ServerName = "main", query: Record<string, string> = {}): Recipe => (o) => send(o, { server, path: { videoId }, query });

/** By problem code; an operation-specific recipe is keyed `operationId code`. */
const RECIPES: Record<string, Recipe> = {
  missing_api_key: (o) => send(o, { key: "none", query: sampleQuery(o), body: bulkBody(o) }),
  invalid_api_key: (o) => send(o, { key: "revoked", query: sampleQuery(o), body: bulkBody(o) }),
  subscription_expired: (o) => send(o, { key: "expired", query: sampleQuery(o), body: bulkBody(o) }),
  conflicting_api_keys: (o) => send(o, { key: "pro", headers: { Authorization: `Bearer ${keys.main.free}` }, query: sampleQuery(o), body: bulkBody(o) }),
  plan_required: (o) => send(o, { key: "free", query: sampleQuery(o), body: bulkBody(o) }),
  rate_limited: async (o) => {
    // Six requests in one clock-minute window: the sixth is over the tight limit only if the minute does not turn between them.
    await roomInThisMinute(5);
    const key = keyFor("tight", "fresh")!;
    let answer: Answer | undefined;
    for (let i = 0; i < 6; i++) answer = await send(o, { server: "tight", headers: { "X-API-Key": key }, query: sampleQuery(o), body: bulkBody(o) });
    return answer;
  },
  invalid_parameter: async (o) => {
    const answer = await send(o, { query: { ...sampleQuery(o), zzUnknown: "1" }, body: bulkBody(o) });
    expect(answer.body.errors).toEqual([{ param: "zzUnknown", message: "is not a parameter of this endpoint" }]);
    return answer;
  },
  // Search by meaning: a set without vectors, a server without the set's embedder.
  no_vectors: (o) => send(o, { server: "tight", key: "fresh", query: { ...sampleQuery(o), mode: "semantic" } }),
  embedder_mismatch: (o) => send(o, { server: "offline", query: { ...sampleQuery(o), mode: "hybrid" } }),
  invalid_json: (o) => send(o, { rawBody: '{"videoIds": [', headers: { "Content-Type": "application/json" } }),
  unsupported_media_type: (o) => send(o, { rawBody: "{}", headers: { "Content-Type": "text/plain" } }),
  payload_too_large: (o) => send(o, { server: "tight", key: "pro", body: { videoIds: [STORED.videoId], padding: "x".repeat(2_000) } }),
  too_many_video_ids: (o) => send(o, { body: { videoIds: Array.from({ length: 101 }, (_, i) => fresh(i).videoId) } }),
  invalid_video_id: (o) => send(o, { path: { videoId: "not-a-video-id" } }),
  channel_not_found: (o) => send(o, { path: { channelId: CHANNEL_UNKNOWN } }),
  video_not_found: video(IDS.unknown, "offline"),
  transcript_not_found: video(IDS.silent, "offline"),
  language_not_available: video(STORED.videoId, "main", { lang: "sw" }),
  track_not_available: video(STORED.videoId, "offline", { track: "generated" }),
  not_acceptable: (o) => send(o, { path: { videoId: STORED.videoId }, headers: { Accept: "image/png" } }),
  // A live fetch's outcomes, each from a fixture video of the stand-in or a fault it is told to show.
  video_unavailable: video("fixtureGONE"),
  transcripts_disabled: video("fixtureNOCC"),
  unplayable: video("fixtureUNPL"),
  age_restricted: video("fixtureAGED"),
  po_token_required: video("fixturePOTK"),
  request_blocked: video("fixtureBOTS"),
  ip_blocked: live({ kind: "captcha" }),
  // Without Retry-After: the exit rests only its short cool-down, not into the outcomes provoked after this one.
  upstream_rate_limited: live({ kind: "rate-limit" }),
  consent_failed: live({ kind: "consent", invalid: true }),
  upstream_unparsable: live({ kind: "malformed-json" }),
  upstream_status: live({ kind: "server-error", endpoint: "player" }),
  upstream_too_large: live({ kind: "huge-body" }),
  empty_transcript: live({ kind: "empty-body" }),
  connection_failed: live({ kind: "connection-reset", endpoint: "timedtext" }),
  upstream_timeout: live({ kind: "slow", delayMs: 4_000, endpoint: "player" }),
  // One fetch slot and a 700 ms deadline: the fetch holding the slot runs out of time (504), the one queued behind it too (503).
  deadline_exceeded: async (o) => {
    const [running, queued] = [freshId(), freshId()];
    const fetcher = servers.tight.runtime.fetcher!;
    await withFault({ kind: "slow", delayMs: 1_500, endpoint: "player" }, async () => {
      const first = send(o, { server: "tight", key: "fresh", path: { videoId: running } });
      await until(() => standin.stats.byVideo[running] !== undefined, "the first fetch reached the stand-in");
      const second = await send(o, { server: "tight", key: "fresh", path: { videoId: queued } });
      expect(second.body.code).toBe("upstream_busy");
      expect((await first).body.code).toBe("deadline_exceeded");
      await until(() => fetcher.load.running === 0, "the running fetch ended");
    });
  },
  upstream_busy: async (o) => {
    if (!observed.has(`${o.id} 503 upstream_busy`)) await RECIPES.deadline_exceeded!(o);
  },
  // Last on the tight server: its fetcher is closed while a fetch runs.
  shutting_down: async (o) => {
    const videoId = freshId();
    await withFault({ kind: "slow", delayMs: 300, endpoint: "player" }, async () => {
      const pending = send(o, { server: "tight", key: "fresh", path: { videoId } });
      await until(() => standin.stats.byVideo[videoId] !== undefined, "the fetch reached the stand-in");
      await servers.tight.runtime.fetcher!.close();
      expect((await pending).body.code).toBe("shutting_down");
    });
  },
  "health 503": async (o) => {
    servers.main.runtime.state.unhealthy("a test says so");
    try {
      await send(o);
    } finally {
      servers.main.runtime.state.ok();
    }
  },
  "ready 503": (o) => RECIPES["health 503"]!(o),
};

function bulkBody(o: Operation): unknown {
  return o.spec.requestBody === undefined ? undefined : { videoIds: [STORED.videoId] };
}

/** Every (status, code) an operation documents; `code` is empty for answers that are not problems. */
function documentedOutcomes(o: Operation): { status: string; code: string }[] {
  return Object.entries(o.spec.responses as Record<string, Json>).flatMap(([status, response]) => {
    const problem = response.content?.["application/problem+json"]?.schema;
    const codes: string[] = problem?.allOf?.find((s: Json) => s.properties?.code)?.properties.code.enum ?? [];
    const plain = Object.keys(response.content ?? {}).some((type) => type !== "application/problem+json") || response.content === undefined;
    return [...codes.map((code) => ({ status, code })), ...(plain ? [{ status, code: "" }] : [])];
  });
}

// ---------------------------------------------------------------- the tests

describe("the typed client", () => {
  it("is generated from the served document: test/contract/api-types.ts is current (npm run openapi:types)", async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, "utf8")).toBe(await clientTypes(doc));
  });

  it("calls every operation with what it needs and gets a 200 that matches the document", async () => {
    // Typed calls: a change to the document that breaks them fails type checking (npm run typecheck).
    const main = client("main");
    const auth = { headers: { "X-API-Key": keys.main.pro } };
    const search = await main.GET("/v1/search", { params: { query: { q: "river", limit: 2 } }, ...auth });
    expect(search.data?.results.length).toBe(2);
    // The date filters, as a date and as a date-time: the fixtures' river videos of 2021-01-12 to 2021-01-14.
    const dated = await main.GET("/v1/search", { params: { query: { q: "river", publishedAfter: "2021-01-12", publishedBefore: "2021-01-14T23:59:59Z" } }, ...auth });
    expect(dated.data?.results.length).toBe(3);
    const transcript = await main.GET("/v1/transcript/{videoId}", { params: { path: { videoId: STORED.videoId }, query: { includeMetadata: "true" } }, ...auth });
    expect(typeof transcript.data === "object" && transcript.data.transcript.subs.length).toBeGreaterThan(0);
    const generated = await main.GET("/v1/transcript/{videoId}", { params: { path: { videoId: IDS.chapters }, query: { track: "generated" } }, ...auth });
    expect(typeof generated.data === "object" && generated.data.transcript.isGenerated).toBe(true);
    // fetchMissing and lang have defaults: the generated types must not demand them.
    const bulk = await main.POST("/v1/transcripts/bulk", { body: { videoIds: [STORED.videoId, IDS.markup] }, ...auth });
    expect(bulk.data?.found).toBe(2);
    const list = await main.GET("/v1/channels", { params: { query: { limit: 1 } }, ...auth });
    expect(list.data?.channels.length).toBe(1);
    const channel = await main.GET("/v1/channels/{channelId}/videos", { params: { path: { channelId: CHANNEL_A } }, ...auth });
    expect(channel.data?.videos.length).toBeGreaterThan(0);
    expect((await main.GET("/v1/stats", auth)).data?.videos).toBeGreaterThan(0);
    expect((await main.GET("/healthz")).data?.status).toBe("ok");
    expect((await main.GET("/readyz")).data?.ready).toBe(true);
    expect((await main.GET("/v1/openapi.json")).data?.openapi).toBe("3.1.0");

    // A search by meaning whose embedder fails answers keyword results, with the fallback the document describes.
    const searchOp = operations.find((o) => o.id === "search")!;
    embeddings.behave({ status: 500 });
    try {
      // A query not embedded before: query vectors are kept.
      const fallback = await send(searchOp, { query: { q: "river fallback", mode: "semantic" } });
      expect(fallback.status).toBe(200);
      expect(fallback.body.fallback).toMatchObject({ mode: "keyword", code: "embedder_unavailable" });
    } finally {
      embeddings.behave({});
    }

    // And every operation through the validating path, with every value of every enum query parameter.
    for (const o of operations) {
      const answer = await send(o, { query: sampleQuery(o), body: bulkBody(o) });
      expect(answer.status, `${o.id}: ${answer.text.slice(0, 200)}`).toBe(200);
      for (const param of ((o.spec.parameters ?? []) as Json[]).filter((p) => p.in === "query")) {
        for (const value of (param.schema?.enum ?? []) as string[]) {
          const res = await send(o, { query: { ...sampleQuery(o), [param.name]: value }, body: bulkBody(o) });
          expect(res.status, `${o.id} ${param.name}=${value}`).toBe(200);
        }
      }
    }
  });

  it("gets 304 with the ETag where the document says so", async () => {
    for (const o of operations.filter((x) => x.spec.responses["304"] !== undefined)) {
      const first = await send(o, { query: sampleQuery(o) });
      const etag = first.headers.get("etag");
      expect(etag).toMatch(/^W\/"/);
      const again = await send(o, { query: sampleQuery(o), headers: { "If-None-Match": etag! } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
    }
  });

  it("refuses an unknown query parameter on every operation with a 400 naming it", async () => {
    for (const o of operations) await RECIPES.invalid_parameter!(o);
  });
});

describe("the validator", () => {
  const stats = () => op("stats");
  const answer = (status: number, body: unknown, headers: Record<string, string>) =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
  const good = { "X-Request-Id": "r1", "Cache-Control": "no-store", Vary: "Accept-Encoding", "X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99", "X-RateLimit-Reset": "1700000000" };
  const body = { videos: 1, transcripts: 1, totalWords: 1, avgWordsPerTranscript: 1, channels: 1, transcriptsWithVectors: 1 };

  it("accepts a good answer and refuses one that strays from the document in status, header or body", () => {
    const before = new Set(observed);
    expect(() => validated(stats(), answer(200, body, good), JSON.stringify(body))).not.toThrow();
    expect(() => validated(stats(), answer(418, body, good), JSON.stringify(body))).toThrow(/undocumented status/);
    const { "X-Request-Id": _id, ...withoutId } = good;
    expect(() => validated(stats(), answer(200, body, withoutId), JSON.stringify(body))).toThrow(/required header x-request-id/);
    expect(() => validated(stats(), answer(200, body, { ...good, "Retry-After": "5" }), JSON.stringify(body))).toThrow(/retry-after sent but not documented/);
    expect(() => validated(stats(), answer(200, body, { ...good, "X-RateLimit-Remaining": "-1" }), JSON.stringify(body))).toThrow(/header x-ratelimit-remaining/);
    const negative = { ...body, videos: -1 };
    expect(() => validated(stats(), answer(200, negative, good), JSON.stringify(negative))).toThrow(/must be >= 0/);
    // These made-up answers must not count as outcomes shown.
    observed.clear();
    for (const name of before) observed.add(name);
  });
});

describe("every documented outcome", () => {
  it("is provoked and answers as documented, for every operation", { timeout: 120_000 }, async () => {
    const missing: string[] = [];
    // The shutdown closes the tight server's fetcher: it runs last.
    const outcomes = operations.flatMap((o) => documentedOutcomes(o).map((outcome) => ({ o, ...outcome })));
    outcomes.sort((a, b) => Number(a.code === "shutting_down") - Number(b.code === "shutting_down"));
    for (const { o, status, code } of outcomes) {
      const name = `${o.id} ${status} ${code}`.trim();
      if (observed.has(name) || NOT_PROVOKED[`${status} ${code}`] !== undefined) continue;
      const recipe = RECIPES[`${o.id} ${code || status}`] ?? (code === "" ? undefined : RECIPES[code]);
      if (recipe === undefined) {
        if (status !== "200" && status !== "304") missing.push(name);
        continue;
      }
      await recipe(o);
      expect(observed.has(name), `${name} was not answered by its recipe (the last answer: ${lastOutcome})`).toBe(true);
    }
    expect(missing, "documented outcomes without a recipe in RECIPES (or a reason in NOT_PROVOKED)").toEqual([]);
  });

  it("covers every documented (operation, status, code) but those NOT_PROVOKED lists", () => {
    const documented = operations.flatMap((o) => documentedOutcomes(o).map(({ status, code }) => `${o.id} ${status} ${code}`.trim()));
    const left = documented.filter((name) => !observed.has(name) && NOT_PROVOKED[name.split(" ").slice(1).join(" ")] === undefined);
    expect(left).toEqual([]);
  });
});
