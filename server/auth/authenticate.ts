/**
 * Who is calling. Identity problems are 401 (and do not count against any
 * rate limit: there is no key to count them against); entitlement problems
 * (expired subscription, plan without the endpoint) are 403, checked after
 * the request has been counted.
 */
import type { IncomingMessage } from "node:http";
import type { Plan } from "../config.js";
import { HttpError } from "../http/http-error.js";
import type { DocumentedProblem } from "../http/route.js";
import type { KeyRecord } from "./key-record.js";
import type { KeyStore } from "./key-store.js";

export const API_KEY_HEADER = "x-api-key";
const CHALLENGE = { "WWW-Authenticate": 'ApiKey header="X-API-Key"' };

const BEARER_CHALLENGE = { "WWW-Authenticate": 'ApiKey header="X-API-Key", Bearer' };
const MISSING = { status: 401, code: "missing_api_key", description: "Send your API key in the X-API-Key header." } as const;
const INVALID = { status: 401, code: "invalid_api_key", description: "The API key is not valid." } as const;
const EXPIRED = { status: 403, code: "subscription_expired", description: "The subscription of this API key has expired." } as const;

/** What authentication and entitlement answer with, for the OpenAPI document; `plan_required` only where a route limits plans. */
export function authProblems(limitsPlans: boolean): DocumentedProblem[] {
  const problems: DocumentedProblem[] = [MISSING, INVALID, EXPIRED];
  if (limitsPlans) problems.push({ status: 403, code: "plan_required", description: "The key's plan may not use this endpoint; requiredPlans lists those that may." });
  return problems;
}

export interface AuthenticateOptions {
  /** Also take the key from `Authorization: Bearer <key>` when X-API-Key is absent (the MCP endpoint). Default false. */
  bearer?: boolean;
}

export function authenticate(req: IncomingMessage, keyStore: KeyStore, options: AuthenticateOptions = {}): KeyRecord {
  const challenge = options.bearer === true ? BEARER_CHALLENGE : CHALLENGE;
  let presented = req.headers[API_KEY_HEADER];
  if ((presented === undefined || presented === "") && options.bearer === true) presented = bearerToken(req.headers.authorization);
  if (presented === undefined || presented === "") {
    const description = options.bearer === true ? "Send your API key in the X-API-Key header or as Authorization: Bearer." : MISSING.description;
    throw new HttpError(MISSING.status, MISSING.code, description, { headers: challenge });
  }
  const record = typeof presented === "string" ? keyStore.verify(presented.trim()) : undefined;
  // A revoked key is just an invalid key: the caller learns nothing more.
  if (record === undefined || record.revokedAt !== null) {
    throw new HttpError(INVALID.status, INVALID.code, INVALID.description, { headers: challenge });
  }
  return record;
}

/** The credentials of `Authorization: Bearer <token>` (scheme case-insensitive), else undefined. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S.*)$/i.exec(header.trim());
  return match?.[1]?.trim();
}

export function assertEntitled(record: KeyRecord, nowMs: number, allowedPlans: readonly Plan[] | undefined): void {
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= nowMs) {
    throw new HttpError(EXPIRED.status, EXPIRED.code, EXPIRED.description);
  }
  if (allowedPlans !== undefined && !allowedPlans.includes(record.plan)) {
    throw new HttpError(403, "plan_required", `This endpoint needs one of these plans: ${allowedPlans.join(", ")}.`, {
      extensions: { requiredPlans: [...allowedPlans] },
    });
  }
}
