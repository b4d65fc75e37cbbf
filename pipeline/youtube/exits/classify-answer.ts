/**
 * Whether an upstream answer means YouTube refused the exit it came through:
 * HTTP 429, the redirect to (or the page of) Google's "unusual traffic"
 * check, the captcha page, the bot check in a player answer, a consent wall
 * that comes back although the request carried the consent cookie, and a
 * caption answer of 200 with an empty body (what YouTube sends when it wants
 * a token the request lacks). Everything else is the step's to judge.
 */
import { BOT_CHECK, CAPTCHA_MARK, CONSENT_FORM, UNUSUAL_TRAFFIC } from "../block-wording.js";
import type { YouTubeErrorCode } from "../errors.js";

export interface BlockVerdict {
  code: Extract<YouTubeErrorCode, "rate_limited" | "ip_blocked" | "request_blocked" | "empty_transcript" | "consent_failed">;
  message: string;
  /** From a Retry-After header, in ms. */
  retryAfterMs?: number;
  /** The HTTP status, for 429. */
  status?: number;
}

export interface AnswerToClassify {
  url: string;
  requestHeaders?: Record<string, string>;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const API_KEY = '"INNERTUBE_API_KEY"';

export function classifyAnswer(answer: AnswerToClassify, now: number = Date.now()): BlockVerdict | undefined {
  const { status, body } = answer;
  if (status === 429) {
    const retryAfterMs = retryAfter(answer.headers["retry-after"], now);
    return { code: "rate_limited", message: "YouTube answered 429 Too Many Requests", status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  const location = header(answer.headers.location) ?? "";
  if (status >= 300 && status < 400 && /\/sorry\//.test(location)) {
    return { code: "ip_blocked", message: "YouTube sent the request to its unusual-traffic check: this address is blocked" };
  }
  const path = pathOf(answer.url);
  if (path === "/youtubei/v1/player") return botCheck(body);
  if (path === "/api/timedtext") {
    return status === 200 && body.trim().length === 0 ? { code: "empty_transcript", message: "YouTube answered the transcript request with an empty body" } : undefined;
  }
  if (body.includes(API_KEY)) return undefined;
  if (body.includes(CAPTCHA_MARK)) return { code: "ip_blocked", message: "YouTube answered with a captcha page: this address is blocked" };
  if (UNUSUAL_TRAFFIC.test(body)) return { code: "ip_blocked", message: "YouTube answered with its unusual-traffic page: this address is blocked" };
  const cookie = answer.requestHeaders?.cookie ?? "";
  if (body.includes(CONSENT_FORM) && /(^|;\s*)CONSENT=YES\+/.test(cookie)) {
    return { code: "consent_failed", message: "The consent cookie could not be set: YouTube asked again" };
  }
  return undefined;
}

function botCheck(body: string): BlockVerdict | undefined {
  if (!body.includes("LOGIN_REQUIRED")) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const playability = (json as { playabilityStatus?: { status?: unknown; reason?: unknown } } | null)?.playabilityStatus;
  if (playability?.status !== "LOGIN_REQUIRED" || typeof playability.reason !== "string" || !BOT_CHECK.test(playability.reason)) return undefined;
  return { code: "request_blocked", message: "YouTube asked to confirm this is not a bot: the request was blocked" };
}

/** Retry-After as seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = header(value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}
