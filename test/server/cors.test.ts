/** Opt-in CORS over a real server: preflights, the headers of actual responses, refused origins, and CORS off by default. */
import { readFileSync } from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CORS_MAX_AGE_SECONDS } from "../../server/http/cors.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** node:http, so Origin and the preflight headers go out exactly as written. */
function request(baseUrl: string, method: string, path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const APP = "https://app.example.com";
const DEV = "http://localhost:5173";
const preflight = (origin: string, method = "GET", requestHeaders = "x-api-key") => ({
  Origin: origin,
  "Access-Control-Request-Method": method,
  "Access-Control-Request-Headers": requestHeaders,
});

let artifacts: Artifacts;
let listed: TestServer;
let any: TestServer;
let off: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  [listed, any, off] = await Promise.all([
    startTestServer({ artifacts, env: { CORS_ORIGINS: `${APP}, ${DEV}/` } }),
    startTestServer({ artifacts, env: { CORS_ORIGINS: "*" } }),
    startTestServer({ artifacts }),
  ]);
});
afterAll(async () => {
  await Promise.all([listed?.close(), any?.close(), off?.close()]);
  artifacts?.cleanup();
});

const corsHeaders = (headers: http.IncomingHttpHeaders) => Object.keys(headers).filter((name) => name.startsWith("access-control-"));

describe("CORS with an allowlist", () => {
  test("answers a preflight from a listed origin with 204 and what the page may send, without a key and without counting it", async () => {
    const key = listed.keyStore.create({ plan: "pro" }).key;
    const res = await request(listed.baseUrl, "OPTIONS", "/v1/search?q=river", preflight(APP, "GET", "x-api-key, if-none-match"));
    expect(res.status).toBe(204);
    expect(res.body).toBe("");
    expect(res.headers["access-control-allow-origin"]).toBe(APP);
    expect(res.headers["access-control-allow-methods"]).toBe("GET, HEAD");
    const allowHeaders = String(res.headers["access-control-allow-headers"]).split(",").map((h) => h.trim().toLowerCase());
    expect(allowHeaders).toEqual(expect.arrayContaining(["x-api-key", "content-type", "authorization", "if-none-match"]));
    expect(res.headers["access-control-max-age"]).toBe(String(CORS_MAX_AGE_SECONDS));
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
    expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
    // Preflights were not counted: the key's first request has all 100 but one left.
    for (let i = 0; i < 3; i++) await request(listed.baseUrl, "OPTIONS", "/v1/stats", preflight(APP));
    const first = await request(listed.baseUrl, "GET", "/v1/stats", { Origin: APP, "X-API-Key": key });
    expect(first.status).toBe(200);
    expect(first.headers["x-ratelimit-remaining"]).toBe("99");
  });

  test("lists the path's own methods: POST for bulk, with Content-Type allowed", async () => {
    const res = await request(listed.baseUrl, "OPTIONS", "/v1/transcripts/bulk", preflight(DEV, "POST", "content-type, x-api-key"));
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(DEV);
    expect(res.headers["access-control-allow-methods"]).toBe("POST");
  });

  test("gives actual responses from a listed origin Allow-Origin and the exposed headers, errors included", async () => {
    const ok = await request(listed.baseUrl, "GET", "/v1/search?q=river", { Origin: APP, "X-API-Key": listed.keys.pro });
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe(APP);
    const exposed = String(ok.headers["access-control-expose-headers"]).split(",").map((h) => h.trim());
    expect(exposed).toEqual(
      expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit", "Retry-After", "ETag", "X-Request-Id"]),
    );
    expect(ok.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(ok.headers.vary).toMatch(/\bOrigin\b/);
    expect(ok.headers.vary).toMatch(/\bAccept-Encoding\b/);

    // A page must be able to read why it was refused.
    const unauthorized = await request(listed.baseUrl, "GET", "/v1/stats", { Origin: APP });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers["access-control-allow-origin"]).toBe(APP);
    expect(JSON.parse(unauthorized.body).code).toBe("missing_api_key");
  });

  test("sends no CORS header to an origin that is not listed, and refuses its preflight with a 403 problem", async () => {
    for (const origin of ["https://evil.example.com", "https://app.example.com.evil.com", "http://app.example.com", "null"]) {
      const actual = await request(listed.baseUrl, "GET", "/v1/stats", { Origin: origin, "X-API-Key": listed.keys.pro });
      expect(actual.status).toBe(200);
      expect(corsHeaders(actual.headers), origin).toEqual([]);
      const pre = await request(listed.baseUrl, "OPTIONS", "/v1/stats", preflight(origin));
      expect(pre.status, origin).toBe(403);
      expect(pre.headers["content-type"]).toBe("application/problem+json");
      expect(JSON.parse(pre.body)).toMatchObject({ status: 403, code: "origin_not_allowed" });
      expect(corsHeaders(pre.headers), origin).toEqual([]);
    }
  });

  test("allows exactly the request headers docs/deploy.md lists, Authorization (a Bearer key) among them", async () => {
    const res = await request(listed.baseUrl, "OPTIONS", "/mcp", preflight(APP, "POST", "authorization, content-type, accept, mcp-protocol-version"));
    expect(res.status).toBe(204);
    const served = String(res.headers["access-control-allow-headers"]);
    const deploy = readFileSync(new URL("../../docs/deploy.md", import.meta.url), "utf8");
    const documented = /`Access-Control-Allow-Headers: ([^`]+)`/.exec(deploy.replace(/\n\s*/g, " "))?.[1];
    expect(documented).toBe(served);
    expect(served.split(", ")).toEqual(expect.arrayContaining(["Authorization", "Accept", "Mcp-Protocol-Version"]));
  });

  test("answers a preflight to an unknown path with 404, and a bare OPTIONS (no preflight) with 405 as before", async () => {
    const unknown = await request(listed.baseUrl, "OPTIONS", "/v1/nothing-here", preflight(APP));
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).code).toBe("route_not_found");
    const bare = await request(listed.baseUrl, "OPTIONS", "/v1/stats", {});
    expect(bare.status).toBe(405);
    expect(bare.headers.allow).toBe("GET, HEAD");
  });

  test("needs no Origin to answer as usual, and still says the answer varies by Origin", async () => {
    const res = await request(listed.baseUrl, "GET", "/healthz", {});
    expect(res.status).toBe(200);
    expect(corsHeaders(res.headers)).toEqual([]);
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });
});

describe("CORS for any origin", () => {
  test("answers * (never with credentials) to preflights and actual responses", async () => {
    const pre = await request(any.baseUrl, "OPTIONS", "/v1/transcript/abc", preflight("https://anything.example"));
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
    expect(pre.headers["access-control-allow-credentials"]).toBeUndefined();
    const res = await request(any.baseUrl, "GET", "/v1/stats", { Origin: "https://anything.example", "X-API-Key": any.keys.pro });
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["access-control-expose-headers"]).toContain("RateLimit");
  });
});

describe("CORS off (the default)", () => {
  test("sends no CORS header and answers OPTIONS with 405", async () => {
    const pre = await request(off.baseUrl, "OPTIONS", "/v1/stats", preflight(APP));
    expect(pre.status).toBe(405);
    expect(corsHeaders(pre.headers)).toEqual([]);
    const res = await request(off.baseUrl, "GET", "/v1/stats", { Origin: APP, "X-API-Key": off.keys.pro });
    expect(res.status).toBe(200);
    expect(corsHeaders(res.headers)).toEqual([]);
    expect(res.headers.vary).toBe("Accept-Encoding");
  });
});

describe("CORS_ORIGINS", () => {
  test("takes exact origins (normalised as browsers send them) or * alone, and refuses anything else naming the variable", async () => {
    const { loadConfig } = await import("../../server/config.js");
    expect(loadConfig({ CORS_ORIGINS: "" }).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: "HTTPS://App.Example.com:443/, http://localhost:5173" }).corsOrigins).toEqual(["https://app.example.com", "http://localhost:5173"]);
    expect(loadConfig({ CORS_ORIGINS: " * " }).corsOrigins).toEqual(["*"]);
    for (const bad of ["https://app.example.com/path", "ftp://files.example.com", "app.example.com", "*, https://app.example.com"]) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS: must be \* or http\(s\) origins/);
    }
  });
});
