/** What every YouTube call needs from the client that owns it. */
import { YouTubeError } from "./errors.js";
import type { HttpTransport } from "./http-transport.js";

export interface ClientContext {
  /** Scheme and host every YouTube URL is built on, without a trailing slash. */
  origin: string;
  transport: HttpTransport;
  /** Runs one step, retrying it through the next proxy when YouTube blocks it. */
  retryBlocked<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** The WEB client identity used for browse and resolve_url, as in youtube.md. */
export const WEB_CLIENT = { clientName: "WEB", clientVersion: "2.20260114.01.00", hl: "en", gl: "US" } as const;

/** The ANDROID client identity used for the player call; its caption URLs need no proof-of-origin token. */
export const ANDROID_CLIENT = { clientName: "ANDROID", clientVersion: "20.10.38" } as const;

/** Parses a JSON body, turning garbage into a typed error. */
export function parseJsonBody(body: string, what: string, usedProxy: boolean): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new YouTubeError("upstream_unparsable", `${what} was not valid JSON`, { usedProxy, cause: error });
  }
}

/** Reads a nested property of untyped JSON without a cascade of casts. */
export function dig(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Text of a YouTube text object: `{simpleText}`, `{runs:[{text}]}` or `{content}`. */
export function textOf(value: unknown): string | undefined {
  const simple = asString(dig(value, "simpleText")) ?? asString(dig(value, "content"));
  if (simple !== undefined) return simple;
  const runs = asArray(dig(value, "runs"));
  if (runs.length === 0) return undefined;
  return runs.map((run) => asString(dig(run, "text")) ?? "").join("");
}
