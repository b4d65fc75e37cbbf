/**
 * The Origin rule of MCP's Streamable HTTP transport: the server must check
 * `Origin`, so that a page in a browser (DNS rebinding, a malicious site)
 * cannot drive a server it can reach. A request without `Origin` (every
 * client that is not a browser) passes; one with it passes only when the
 * CORS_ORIGINS allowlist names that origin, or is `*`.
 */
import type { Config } from "../config.js";
import { HttpError } from "../problem/http-error.js";

/** The browser origins allowed to call the API: CORS_ORIGINS (normalised origins, or `*` alone). */
export function allowedOrigins(config: Config): readonly string[] {
  return config.corsOrigins;
}

export function assertOriginAllowed(origin: string | string[] | undefined, allowed: readonly string[]): void {
  if (origin === undefined) return;
  if (allowed.includes("*")) return;
  const normalised = typeof origin === "string" ? originOf(origin) : undefined;
  if (normalised === undefined || !allowed.includes(normalised)) {
    throw new HttpError(403, "origin_not_allowed", "Requests from this Origin are not allowed (CORS_ORIGINS).");
  }
}

/** `URL.origin` of an http(s) origin, else undefined (`null`, other schemes, garbage). */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
