/**
 * What every answer of the server must satisfy, whatever was sent: no 5xx,
 * the security headers, a problem+json body on errors, nothing internal in
 * the body.
 */
import { expect } from "vitest";
import { SECURITY_HEADERS } from "../../../server/http/security-headers.js";
import type { RawResponse } from "./raw-http.js";

/** Stack frames, absolute paths of this machine, dependency folders. */
export const LEAK_PATTERNS: readonly RegExp[] = [
  /\bat [^\s"]+ \(?[^\s"]*:\d+:\d+\)?/,
  /\/work\//,
  /node_modules/,
  /\/tmp\//,
  /\.ts:\d+/,
  /\b(?:SqliteError|TypeError|RangeError|ReferenceError|SyntaxError)\b/,
];

export function expectNoLeaks(body: string, context: string): void {
  for (const pattern of LEAK_PATTERNS) expect(body, `${context}: body matches ${pattern}`).not.toMatch(pattern);
}

export function expectSecurityHeaders(headers: Record<string, string> | Headers, context: string): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name.toLowerCase()]) ?? null;
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(get(name), `${context}: ${name}`).toBe(value);
}

/** Any answer: below 500, secured, and a well-formed problem when it is an error. */
export function expectSaneAnswer(res: RawResponse, context: string): void {
  expect(res.status, `${context}: got ${res.raw.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
  expect(res.status, `${context}: got ${res.raw.slice(0, 300)}`).toBeLessThan(500);
  expectSecurityHeaders(res.headers, context);
  expectNoLeaks(res.body, context);
  if (res.status >= 400) {
    expect(res.headers["content-type"], context).toBe("application/problem+json");
    if (res.body === "") return; // HEAD
    const problem = JSON.parse(res.body) as Record<string, unknown>;
    expect(problem.status, context).toBe(res.status);
    expect(problem.code, context).toMatch(/^[a-z][a-z_]*$/);
    expect(problem.type, context).toBe(`urn:transcript-service:problem:${String(problem.code)}`);
    expect(typeof problem.detail, context).toBe("string");
    expect(problem.requestId, context).toBe(res.headers["x-request-id"]);
  } else if (res.status !== 304 && res.body !== "") {
    expect(res.headers["content-type"], context).toBe("application/json; charset=utf-8");
    JSON.parse(res.body);
  }
}
