/**
 * The stand-in's limits, over real sockets: a budget per client address per
 * window, a cool-down that requests made while blocked extend, each block
 * answer in YouTube's shape, and the record of requests and announced blocks
 * (in process and at GET /__standin/limits). Loopback exit proxies make
 * distinct client addresses.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProxyAgent, request } from "undici";
import { startExitProxies, startExitProxy, type ExitProxy } from "../../scripts/youtube-standin/exit-proxy.js";
import { answerFor, type BlockAnswer, type LimitsReport } from "../../scripts/youtube-standin/limits.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { testCorpus, BREAD } from "../youtube/helpers/records.js";

let standin: Standin;
let exits: ExitProxy[];

beforeAll(async () => {
  standin = await startStandin({ corpus: testCorpus().corpus });
  exits = await startExitProxies(2);
});
afterAll(async () => {
  await Promise.all(exits.map((e) => e.close()));
  await standin.close();
});
beforeEach(() => {
  standin.setLimits(null);
  standin.resetLimits();
});

async function get(exit: ExitProxy | undefined, path: string, init: { method?: "GET" | "POST"; body?: string; cookie?: string } = {}) {
  const dispatcher = exit ? new ProxyAgent({ uri: exit.url }) : undefined;
  try {
    const res = await request(`${standin.origin}${path}`, {
      method: init.method ?? "GET",
      ...(dispatcher ? { dispatcher } : {}),
      headers: { connection: "close", ...(init.cookie ? { cookie: init.cookie } : {}), ...(init.body ? { "content-type": "application/json" } : {}) },
      body: init.body ?? null,
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  } finally {
    await dispatcher?.close();
  }
}

const watch = (exit?: ExitProxy) => get(exit, `/watch?v=${BREAD.videoId}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("budget per client address", () => {
  it("serves each address its budget, then blocks that address only", async () => {
    standin.setLimits({ budget: 3, windowMs: 5_000, coolDownMs: 2_000 });
    const [a, b] = exits as [ExitProxy, ExitProxy];
    for (let i = 0; i < 3; i++) expect((await watch(a)).status).toBe(200);
    const refused = await watch(a);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("2");
    // The other exit is another client: its budget is whole.
    expect((await watch(b)).status).toBe(200);
    const report = standin.limitsReport();
    expect(Object.keys(report.addresses).sort()).toEqual(["127.0.0.2", "127.0.0.3"]);
    expect(report.addresses["127.0.0.2"]).toMatchObject({ requests: 4, blocked: 1, duringAnnouncedCoolDown: 0 });
    expect(report.addresses["127.0.0.3"]).toMatchObject({ requests: 1, blocked: 0 });
  });

  it("lets the budget back once the window has slid past the requests", async () => {
    standin.setLimits({ budget: 2, windowMs: 300, coolDownMs: 200 });
    const [a] = exits as [ExitProxy];
    expect((await watch(a)).status).toBe(200);
    expect((await watch(a)).status).toBe(200);
    await sleep(350);
    expect((await watch(a)).status).toBe(200);
    expect(standin.limitsReport().totals.blocked).toBe(0);
  });

  it("extends the cool-down with every request sent while blocked, and counts those as sent during an announced cool-down", async () => {
    standin.setLimits({ budget: 1, windowMs: 10_000, coolDownMs: 1_000 });
    const [a] = exits as [ExitProxy];
    expect((await watch(a)).status).toBe(200);
    expect((await watch(a)).status).toBe(429);
    await sleep(600);
    // Still blocked, and blocked again for a whole cool-down from now.
    expect((await watch(a)).status).toBe(429);
    await sleep(600);
    expect((await watch(a)).status).toBe(429);
    const record = standin.limitsReport().addresses["127.0.0.2"]!;
    expect(record.blocked).toBe(3);
    expect(record.duringAnnouncedCoolDown).toBe(2);
    const [first, second] = record.blocks;
    expect(second!.until - first!.until).toBeGreaterThanOrEqual(500);
  });

  it("serves the record as JSON at GET /__standin/limits, not counted as a request", async () => {
    standin.setLimits({ budget: 1, windowMs: 10_000, coolDownMs: 1_000, answer: "bot-check" });
    await watch(exits[0]);
    await get(exits[0], "/youtubei/v1/player", { method: "POST", body: JSON.stringify({ videoId: BREAD.videoId }) });
    const res = await get(undefined, "/__standin/limits");
    const report = JSON.parse(res.body) as LimitsReport;
    expect(report.config).toMatchObject({ budget: 1, answer: "bot-check" });
    expect(report.totals).toEqual({ requests: 2, blocked: 1, duringAnnouncedCoolDown: 0 });
    expect(report.addresses["127.0.0.2"]!.blocks[0]).toMatchObject({ endpoint: "player", answer: "bot-check" });
    expect(report.addresses["127.0.0.2"]!.blocks[0]!.retryAfterSeconds).toBeUndefined();
  });
});

describe("block answers", () => {
  const blockedAnswer = async (answer: BlockAnswer, path: string, init: Parameters<typeof get>[2] = {}) => {
    standin.resetLimits();
    standin.setLimits({ budget: 1, windowMs: 10_000, coolDownMs: 1_000, answer });
    await watch(exits[1]);
    return get(exits[1], path, init);
  };
  const player = { method: "POST" as const, body: JSON.stringify({ context: { client: { clientName: "ANDROID" } }, videoId: BREAD.videoId }) };

  it("answers rate-limit with 429 and Retry-After", async () => {
    const res = await blockedAnswer("rate-limit", `/watch?v=${BREAD.videoId}`);
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("1");
  });

  it("answers unusual-traffic with the redirect to Google's /sorry/ page", async () => {
    const res = await blockedAnswer("unusual-traffic", `/watch?v=${BREAD.videoId}`);
    expect(res.status).toBe(302);
    expect(String(res.headers.location)).toMatch(/^https:\/\/www\.google\.com\/sorry\/index\?continue=/);
  });

  it("answers bot-check with the player's LOGIN_REQUIRED bot wording", async () => {
    const res = await blockedAnswer("bot-check", "/youtubei/v1/player", player);
    const body = JSON.parse(res.body) as { playabilityStatus: { status: string; reason: string } };
    expect(res.status).toBe(200);
    expect(body.playabilityStatus.status).toBe("LOGIN_REQUIRED");
    expect(body.playabilityStatus.reason).toMatch(/^Sign in to confirm you[’']re not a bot/);
  });

  it("answers captcha with the recaptcha page and no API key", async () => {
    const res = await blockedAnswer("captcha", `/watch?v=${BREAD.videoId}`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('class="g-recaptcha"');
    expect(res.body).not.toContain("INNERTUBE_API_KEY");
  });

  it("answers consent with the consent wall even to a request carrying the cookie", async () => {
    const res = await blockedAnswer("consent", `/watch?v=${BREAD.videoId}`, { cookie: "CONSENT=YES+cb" });
    expect(res.body).toContain('action="https://consent.youtube.com/s"'.replace("https://www.youtube.com", standin.origin));
  });

  it("answers empty-caption with 200 and an empty caption body", async () => {
    const res = await blockedAnswer("empty-caption", `/api/timedtext?v=${BREAD.videoId}&lang=en`);
    expect(res).toMatchObject({ status: 200, body: "" });
  });

  it("uses the unusual-traffic redirect where the chosen shape cannot be given, and mixes shapes by endpoint", () => {
    expect(answerFor("bot-check", "watch")).toBe("unusual-traffic");
    expect(answerFor("empty-caption", "player")).toBe("unusual-traffic");
    expect(answerFor("rate-limit", "browse")).toBe("rate-limit");
    expect(["watch", "player", "timedtext", "browse"].map((e) => answerFor("by-endpoint", e as never))).toEqual(["captcha", "bot-check", "empty-caption", "rate-limit"]);
  });
});

describe("exit proxies", () => {
  it("connect upstream from their own loopback address, for CONNECT and absolute-form requests", async () => {
    standin.setLimits({ budget: 100, windowMs: 10_000, coolDownMs: 1_000 });
    const exit = await startExitProxy({ localAddress: "127.0.0.9" });
    try {
      await watch(exit);
      const plain = new ProxyAgent({ uri: exit.url, proxyTunnel: false });
      const res = await request(`${standin.origin}/watch?v=${BREAD.videoId}`, { dispatcher: plain });
      await res.body.text();
      await plain.close();
      expect(res.statusCode).toBe(200);
      expect(exit.requests).toBe(2);
      expect(standin.limitsReport().addresses["127.0.0.9"]?.requests).toBe(2);
    } finally {
      await exit.close();
    }
  });
});
