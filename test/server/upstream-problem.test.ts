/**
 * The one table from a live fetch's outcome to the API's answer
 * (server/live/upstream-problem.ts): every client error code has a row, the
 * status class follows the outcome's kind, and docs/errors.md's table of live
 * fetch errors says what the server answers.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { YOUTUBE_ERROR_KINDS, YouTubeError, type YouTubeErrorCode } from "../../pipeline/youtube/index.js";
import { deadlineExceededError, shuttingDownError, upstreamBusyError, upstreamHttpError, upstreamProblem } from "../../server/live/upstream-problem.js";

const CODES = Object.keys(YOUTUBE_ERROR_KINDS) as YouTubeErrorCode[];

/** Rows of docs/errors.md's "Errors of a live fetch" table: code → [status, Retry-After]. */
function readmeErrorTable(): Map<string, [number, string]> {
  const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/errors.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Errors of a live fetch"));
  const rows = new Map<string, [number, string]>();
  for (const match of section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|([^|]*)\|/gm)) {
    rows.set(match[1] as string, [Number(match[2]), (match[3] as string).trim()]);
  }
  return rows;
}

describe("the upstream outcome table", () => {
  it("maps every code to an HTTP status: 4xx for permanent outcomes, 5xx for upstream trouble", () => {
    for (const code of CODES) {
      const { status } = upstreamProblem(code);
      if (YOUTUBE_ERROR_KINDS[code] === "permanent" && code !== "po_token_required") expect(status, code).toBeLessThan(500);
      else expect(status, code).toBeGreaterThanOrEqual(500);
    }
    expect(upstreamProblem("invalid_video_id").status).toBe(400);
    expect(upstreamProblem("video_unavailable").status).toBe(404);
    expect(upstreamProblem("age_restricted").status).toBe(403);
    expect(upstreamProblem("rate_limited")).toMatchObject({ status: 502, code: "upstream_rate_limited" });
    expect(upstreamProblem("upstream_timeout").status).toBe(504);
  });

  it("is what docs/errors.md's table of live fetch errors says, row for row", () => {
    const documented = readmeErrorTable();
    const channelOnly = new Set<YouTubeErrorCode>(["invalid_channel", "channel_not_found"]);
    for (const code of CODES.filter((c) => !channelOnly.has(c))) {
      const problem = upstreamProblem(code);
      const error = upstreamHttpError(new YouTubeError(code, "upstream text that must not be sent"));
      expect(documented.get(problem.code), problem.code).toBeDefined();
      const [status, retryAfter] = documented.get(problem.code) as [number, string];
      expect(error.status, problem.code).toBe(status);
      expect(error.code).toBe(problem.code);
      expect(error.detail).not.toContain("upstream text");
      // The README's Retry-After column starts with the table's value ("60, or YouTube's own if longer").
      expect(retryAfter.split(",")[0], problem.code).toBe(error.headers["Retry-After"] ?? "");
    }
    for (const error of [upstreamBusyError("queue-full"), upstreamBusyError("deadline"), deadlineExceededError(), shuttingDownError()]) {
      expect(documented.get(error.code), error.code).toEqual([error.status, error.headers["Retry-After"]]);
    }
  });

  it("lets YouTube's own Retry-After win when it asks for a longer pause", () => {
    const error = upstreamHttpError(new YouTubeError("rate_limited", "429", { retryAfterSeconds: 120 }));
    expect(error.headers["Retry-After"]).toBe("120");
    expect(upstreamHttpError(new YouTubeError("rate_limited", "429", { retryAfterSeconds: 1 })).headers["Retry-After"]).toBe("60");
  });
});
