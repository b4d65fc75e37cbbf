/** Content-Encoding negotiation, checked on the raw bytes (fetch would decompress them silently). */
import http from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chooseEncoding } from "../../server/http/compression.js";
import { IDS, RIVER_VIDEO_COUNT } from "./helpers/fixture-records.js";
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

  test("counts an uncompressed answer's characters beyond ASCII in Content-Length as their UTF-8 bytes", async () => {
    for (const path of ["/v1/search?q=flie%C3%9Ft", `/v1/transcript/${IDS.german}?lang=de`]) {
      const res = await fetchRaw(path);
      expect(res.headers["content-encoding"]).toBeUndefined();
      const text = res.body.toString("utf8");
      expect(text).toContain("fließt");
      expect(Number(res.headers["content-length"])).toBe(res.body.length);
      expect(res.body.length).toBeGreaterThan(text.length);
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

  test("a bulk answer, sent as cached parts, has the same JSON compressed or not and an exact Content-Length", async () => {
    const rivers = Array.from({ length: RIVER_VIDEO_COUNT }, (_, i) => `river000${String(i).padStart(3, "0")}`);
    const videoIds = [IDS.chapters, IDS.markup, ...rivers, IDS.unknown];
    const body = JSON.stringify({ videoIds, fetchMissing: false });
    const post = (acceptEncoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.request(`${server.baseUrl}/v1/transcripts/bulk`, {
          method: "POST",
          headers: { "X-API-Key": server.keys.pro, "Content-Type": "application/json", "Accept-Encoding": acceptEncoding },
        });
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on("error", reject);
        req.end(body);
      });
    // Twice each: the second answer is assembled from cached items.
    for (let round = 0; round < 2; round++) {
      const plain = await post("identity");
      const gz = await post("gzip");
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(gz.headers["content-encoding"]).toBe("gzip");
      expect(Number(plain.headers["content-length"])).toBe(plain.body.length);
      expect(Number(gz.headers["content-length"])).toBe(gz.body.length);
      const withoutTiming = (json: Record<string, unknown>) => ({ ...json, timing: undefined });
      const fromPlain = JSON.parse(plain.body.toString("utf8"));
      expect(withoutTiming(JSON.parse(gunzipSync(gz.body).toString("utf8")))).toEqual(withoutTiming(fromPlain));
      expect(fromPlain).toMatchObject({ requested: videoIds.length, found: videoIds.length - 1 });
      expect(fromPlain.transcripts.map((t: { videoId: string }) => t.videoId)).toEqual(videoIds.slice(0, -1));
    }
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
