/**
 * A local stand-in for YouTube on `node:http`, speaking the protocol the
 * client uses (see fixtures.ts for the fixture videos it also serves).
 * Every request is counted by endpoint and by video id, and one fault at a
 * time can be armed to make it misbehave.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { StandinCorpus } from "./corpus.js";
import { blockReply } from "./block-answers.js";
import { ENDPOINTS, FaultState, type Endpoint, type Fault } from "./faults.js";
import { FixtureFiles, OWN_FIXTURES, recordedFixtures, recordingsProblem, resolveFromRepo } from "./fixtures.js";
import type { StandinPlaylist } from "./render-playlist.js";
import { clientAddress, LimitsState, type AddressRecord, type LimitsConfig, type LimitsReport } from "./limits.js";
import { endpointOf, json, route, type Reply } from "./routes.js";
import { DEFAULT_VIDEO_CACHE_SIZE, withVideoCache } from "./video-cache.js";

export interface StandinOptions {
  /** Port to listen on. Default 0 (any free port). */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  corpus: StandinCorpus;
  /** Playlists served beside the corpus's channels (browse id `VL` + the id). Default none. */
  playlists?: readonly StandinPlaylist[];
  /** Videos kept in an LRU in front of `corpus` (generated corpora rebuild a video on every look-up); 0 turns it off. Default 256. */
  videoCacheSize?: number;
  /**
   * Folder of the recorded YouTube responses (absolute, or relative to the
   * repository root), served beside the project's own fixtures. Default: none.
   */
  recordingsDir?: string;
  /** Clock for caption URL expiry and "3 weeks ago" texts. Default `Date.now`. */
  now?: () => number;
  /** YouTube's limits per client address (limits.ts); default none. `setLimits` changes them later. */
  limits?: LimitsConfig;
}

export interface VideoRequestCounts {
  watch: number;
  player: number;
  timedtext: number;
}

export interface StandinStats {
  total: number;
  byEndpoint: Record<Endpoint, number>;
  byVideo: Record<string, VideoRequestCounts>;
  /** The same, counting only requests the limits let through (not answered with a block): what the client was actually served. */
  servedByVideo: Record<string, VideoRequestCounts>;
  /** Requests to unknown routes. */
  unknown: number;
  /** Bytes actually written for `huge-body` faults (shows the client stopped reading). */
  hugeBodyBytesSent: number;
  reset(): void;
}

export interface Standin {
  /** `http://127.0.0.1:<port>`, to pass as the client's `origin`. */
  origin: string;
  stats: StandinStats;
  /** Arms a fault (replacing any other) or, with null, clears it. */
  setFault(fault: Fault | null): void;
  /** Turns YouTube's limits per client address on (or off with null); what was recorded is kept. */
  setLimits(limits: LimitsConfig | null): void;
  /** Per client address: every request time and every block announced; also served as JSON at `GET /__standin/limits`. */
  limitsReport(): LimitsReport;
  /** Every request time and block of one client address, in order (undefined for an address never seen). */
  limitsRecord(address: string): AddressRecord | undefined;
  /** Forgets the limits' record (and every address's budget and cool-down). */
  resetLimits(): void;
  close(): Promise<void>;
}

const HUGE_BODY_BYTES = 100 * 1024 * 1024;

/** The stand-in's own route (YouTube has no such path): the limits' record as JSON. */
export const LIMITS_ROUTE = "/__standin/limits";

export async function startStandin(options: StandinOptions): Promise<Standin> {
  const files = fixtureFiles(options.recordingsDir);
  const now = options.now ?? Date.now;
  const faults = new FaultState();
  const limits = new LimitsState();
  if (options.limits) limits.set(options.limits);
  const stats = createStats();
  const corpus = withVideoCache(options.corpus, options.videoCacheSize ?? DEFAULT_VIDEO_CACHE_SIZE);
  const playlists = new Map((options.playlists ?? []).map((playlist) => [playlist.playlistId, playlist]));
  let origin = "";

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, json(500, { error: { code: 500, message: String(error) } }), origin);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", origin);
    const endpoint = endpointOf(req.method ?? "GET", url.pathname);
    const raw = await readBody(req);
    if (req.method === "GET" && url.pathname === LIMITS_ROUTE) {
      send(res, json(200, limits.report()), origin);
      return;
    }
    stats.total++;
    if (endpoint === undefined) {
      stats.unknown++;
      send(res, { status: 404, contentType: "text/html", body: "<!DOCTYPE html><title>404 Not Found</title>" }, origin);
      return;
    }
    let parsed: unknown = null;
    if (req.method === "POST") {
      try {
        parsed = JSON.parse(raw);
      } catch {
        send(res, json(400, { error: { code: 400, message: "Invalid JSON payload received.", status: "INVALID_ARGUMENT" } }), origin);
        return;
      }
    }
    const videoId =
      endpoint === "player" ? stringOf((parsed as { videoId?: unknown } | null)?.videoId) : endpoint === "watch" || endpoint === "timedtext" ? (url.searchParams.get("v") ?? undefined) : undefined;
    countRequest(stats, endpoint, videoId);

    // Wall-clock time, not `now` (tests pin that one for stable caption expiries).
    const admission = limits.admit(clientAddress(req.socket.remoteAddress), endpoint, Date.now());
    if (admission.blocked) return send(res, blockReply(admission.block, files, url), origin);
    countVideo(stats.servedByVideo, endpoint, videoId);

    const hasConsent = /(^|;\s*)CONSENT=YES\+/.test(req.headers.cookie ?? "");
    const fault = faults.take(endpoint, (f) => f.kind !== "consent" || f.ignoreCookie === true || !hasConsent);
    if (fault?.kind === "slow") await delay(fault.delayMs);
    const early = fault ? faultReply(fault, files) : undefined;
    if (early) return send(res, early, origin);
    if (fault?.kind === "huge-body") return streamHugeBody(res, fault.bytes ?? HUGE_BODY_BYTES, stats);

    const reply = route({ corpus, playlists, files, origin, nowMs: now() }, { endpoint, url, json: parsed, ...(videoId ? { videoId } : {}) });
    if (fault?.kind === "malformed-json" || fault?.kind === "truncated-xml") {
      // Cut mid-document but with a truthful Content-Length: the bytes arrive, the document is broken.
      reply.body = reply.body.slice(0, Math.max(1, Math.floor(reply.body.length / 2)));
    }
    if (fault?.kind === "truncated-body" || fault?.kind === "connection-reset") return sendCut(res, reply, origin, fault.kind);
    send(res, reply, origin);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  origin = `http://${host}:${address.port}`;

  return {
    origin,
    stats,
    setFault: (fault) => faults.set(fault),
    setLimits: (config) => limits.set(config),
    limitsReport: () => limits.report(),
    limitsRecord: (address) => limits.record(address),
    resetLimits: () => limits.reset(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The project's fixtures, plus the recordings (which then also give the fault pages) when a folder is named. */
function fixtureFiles(recordingsDir: string | undefined): FixtureFiles {
  if (recordingsDir === undefined) return new FixtureFiles([OWN_FIXTURES], OWN_FIXTURES);
  const dir = resolveFromRepo(recordingsDir);
  const problem = recordingsProblem(dir);
  if (problem !== undefined) throw new Error(`The stand-in cannot serve the recorded YouTube responses: ${problem}`);
  const recorded = recordedFixtures(dir);
  return new FixtureFiles([OWN_FIXTURES, recorded], recorded);
}

/** Faults that replace the whole answer; undefined for those that alter or delay the real one. */
function faultReply(fault: Fault, files: FixtureFiles): Reply | undefined {
  const html = "text/html; charset=utf-8";
  switch (fault.kind) {
    case "rate-limit":
      return {
        status: 429,
        contentType: html,
        body: "<html><head><title>Sorry...</title></head><body>We're sorry... but your computer or network may be sending automated queries.</body></html>",
        headers: fault.retryAfterSeconds === undefined ? {} : { "retry-after": String(fault.retryAfterSeconds) },
      };
    case "captcha":
      // Served with 200, so the client has to recognise the page itself rather than lean on the status.
      return { status: 200, contentType: html, body: files.faultPage("captcha") };
    case "bot-check":
      return { status: 200, contentType: "application/json; charset=UTF-8", body: files.faultPage("botCheck") };
    case "server-error":
      return { status: fault.status ?? 503, contentType: html, body: "<html><body>Service Unavailable</body></html>" };
    case "empty-body":
      return { status: 200, contentType: "text/xml; charset=UTF-8", body: "" };
    case "consent":
      return { status: 200, contentType: html, body: files.faultPage(fault.invalid ? "consentInvalid" : "consent") };
    default:
      return undefined;
  }
}

function send(res: ServerResponse, reply: Reply, origin: string): void {
  const body = Buffer.from(rewriteOrigin(reply.body, origin));
  res.writeHead(reply.status, { "content-type": reply.contentType, "content-length": body.length, ...reply.headers });
  res.end(body);
}

/** Declares the full length, sends half, then drops the connection (politely or with a TCP reset). */
function sendCut(res: ServerResponse, reply: Reply, origin: string, kind: "truncated-body" | "connection-reset"): void {
  const body = Buffer.from(rewriteOrigin(reply.body, origin));
  res.writeHead(reply.status, { "content-type": reply.contentType, "content-length": body.length });
  res.flushHeaders();
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => {
    const socket = res.socket;
    if (!socket) return;
    if (kind === "connection-reset") socket.resetAndDestroy();
    else socket.destroy();
  });
}

/** Streams `total` bytes of XML-ish filler with back-pressure, stopping as soon as the client goes away. */
async function streamHugeBody(res: ServerResponse, total: number, stats: StandinStats): Promise<void> {
  res.writeHead(200, { "content-type": "text/xml; charset=UTF-8" });
  const chunk = Buffer.from(`<text start="0" dur="1">${"filler ".repeat(9350)}</text>`.padEnd(65536, " "));
  let sent = 0;
  let closed = false;
  res.on("close", () => (closed = true));
  while (sent < total && !closed) {
    const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
    sent += piece.length;
    stats.hugeBodyBytesSent += piece.length;
    if (!res.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  if (!closed) res.end();
}

export function rewriteOrigin(body: string, origin: string): string {
  return body.replaceAll("https://www.youtube.com", origin);
}

function createStats(): StandinStats {
  const stats: StandinStats = {
    total: 0,
    byEndpoint: Object.fromEntries(ENDPOINTS.map((e) => [e, 0])) as Record<Endpoint, number>,
    byVideo: {},
    servedByVideo: {},
    unknown: 0,
    hugeBodyBytesSent: 0,
    reset() {
      stats.total = 0;
      stats.unknown = 0;
      stats.hugeBodyBytesSent = 0;
      for (const endpoint of ENDPOINTS) stats.byEndpoint[endpoint] = 0;
      for (const key of Object.keys(stats.byVideo)) delete stats.byVideo[key];
      for (const key of Object.keys(stats.servedByVideo)) delete stats.servedByVideo[key];
    },
  };
  return stats;
}

function countRequest(stats: StandinStats, endpoint: Endpoint, videoId: string | undefined): void {
  stats.byEndpoint[endpoint]++;
  countVideo(stats.byVideo, endpoint, videoId);
}

function countVideo(byVideo: Record<string, VideoRequestCounts>, endpoint: Endpoint, videoId: string | undefined): void {
  if (videoId === undefined || (endpoint !== "watch" && endpoint !== "player" && endpoint !== "timedtext")) return;
  const counts = (byVideo[videoId] ??= { watch: 0, player: 0, timedtext: 0 });
  counts[endpoint]++;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
