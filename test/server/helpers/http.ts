/** Small fetch wrappers and the problem-shape assertion shared by the server tests. */
import http from "node:http";
import { expect } from "vitest";

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: any;
}

export interface CallOptions {
  key?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export async function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers["X-API-Key"] = options.key;
  const res = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? "GET",
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) };
}

export function postJson(baseUrl: string, path: string, key: string | undefined, body: unknown): Promise<ApiResponse> {
  return call(baseUrl, path, {
    method: "POST",
    ...(key === undefined ? {} : { key }),
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Raw node:http GET: the bytes as sent (fetch would decompress them). */
export function rawGet(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

export const PROBLEM_KEYS = ["type", "title", "status", "detail", "code", "requestId"];

/** Checks the RFC 9457 problem shape every error response must have. */
export function expectProblem(res: ApiResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = res.body as Record<string, unknown>;
  for (const key of PROBLEM_KEYS) expect(body, `problem member ${key}`).toHaveProperty(key);
  expect(body.type).toBe(`urn:transcript-service:problem:${code}`);
  expect(typeof body.title).toBe("string");
  expect((body.title as string).length).toBeGreaterThan(0);
  expect(body.status).toBe(status);
  expect(typeof body.detail).toBe("string");
  expect(body.code).toBe(code);
  expect(body.requestId).toBe(res.headers.get("x-request-id"));
  expect(JSON.stringify(body)).not.toMatch(/\bat .+:\d+:\d+/); // no stack frames
  if (body.errors !== undefined) {
    expect(Array.isArray(body.errors)).toBe(true);
    for (const e of body.errors as unknown[]) {
      expect(Object.keys(e as object).sort()).toEqual(["message", "param"]);
    }
  }
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
}

export function paramsOf(res: ApiResponse): string[] {
  return ((res.body?.errors ?? []) as { param: string }[]).map((e) => e.param);
}
