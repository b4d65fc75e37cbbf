/** Content-Encoding negotiation, checked on the raw bytes (fetch would decompress them silently). */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chooseEncoding } from "../../server/http/compression.js";
import { IDS } from "./helpers/fixture-records.js";
import { rawGet } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts });
});
afterAll(async () => {
  await server.close();
  artifacts.cleanup();
});

/** Over 1 KB uncompressed. */
const LARGE = "/v1/search?q=river&limit=100";
const fetchRaw = (path: string, acceptEncoding?: string) =>
  rawGet(server.baseUrl, path, { "X-API-Key": server.keys.pro, ...(acceptEncoding ? { "Accept-Encoding": acceptEncoding } : {}) });

describe("response compression", () => {
  test("uses brotli when allowed and the body is over 1 KB", async () => {
    const res = await fetchRaw(LARGE, "gzip, deflate, br");
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers.vary).toBe("Accept-Encoding");
    expect(Number(res.headers["content-length"])).toBe(res.body.length);
    const json = JSON.parse(brotliDecompressSync(res.body).toString("utf8"));
    expect(json.results.length).toBeGreaterThan(1);
    expect(brotliDecompressSync(res.body).length).toBeGreaterThan(1024);
  });

  test("uses gzip when only gzip is allowed", async () => {
    const res = await fetchRaw(LARGE, "gzip");
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(res.body).toString("utf8")).query).toBe("river");
  });

  test("sends identity without Accept-Encoding, or when every coding is refused", async () => {
    for (const accept of [undefined, "identity", "br;q=0, gzip;q=0", "deflate"]) {
      const res = await fetchRaw(LARGE, accept);
      expect(res.headers["content-encoding"]).toBeUndefined();
      expect(JSON.parse(res.body.toString("utf8")).query).toBe("river");
    }
  });

  test("leaves small bodies uncompressed", async () => {
    const res = await fetchRaw("/v1/stats", "br, gzip");
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.headers.vary).toBe("Accept-Encoding");
  });

  test("compresses a transcript without changing its ETag", async () => {
    const plain = await fetchRaw(`/v1/transcript/${IDS.chapters}?includeMetadata=true`, "identity");
    const gz = await fetchRaw(`/v1/transcript/${IDS.chapters}?includeMetadata=true`, "gzip");
    expect(gz.headers.etag).toBe(plain.headers.etag);
  });
});

describe("encoding negotiation", () => {
  test.each([
    ["br", "br"],
    ["gzip", "gzip"],
    ["gzip;q=1, br;q=0.5", "gzip"],
    ["br;q=0.5, gzip;q=0.5", "br"],
    ["*", "br"],
    ["*;q=0, gzip", "gzip"],
    ["BR", "br"],
    ["identity", undefined],
    ["", undefined],
    ["gzip;q=0", undefined],
  ])("Accept-Encoding %j → %s", (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });
});
