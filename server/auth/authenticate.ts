/**
 * Who is calling. Identity problems are 401 (and do not count against any
 * rate limit: there is no key to count them against), two different keys in
 * one request a 400, uncounted too; entitlement problems
 * (expired subscription, plan without the endpoint) are 403, checked after
 * the request has been counted.
 */
import type { IncomingMessage } from "node:http";
import type { Plan } from "../config.js";
import { HttpError } from "../problem/http-error.js";
import type { DocumentedProblem } from "../problem/documented-problem.js";
import type { KeyRecord } from "./key-record.js";
import type { KeyStore } from "./key-store.js";

export const API_KEY_HEADER = "x-api-key";
/** Both ways of sending a key are named, so a client that tried one learns of the other. */
const CHALLENGE = { "WWW-Authenticate": 'ApiKey header="X-API-Key", Bearer' };

const MISSING = { status: 401, code: "missing_api_key", description: "Send your API key in the X-API-Key header or as Authorization: Bearer." } as const;
const INVALID = { status: 401, code: "invalid_api_key", description: "The API key is not valid." } as const;
const CONFLICTING = {
  status: 400,
  code: "conflicting_api_keys",
  description: "X-API-Key and Authorization: Bearer carry different keys; send the key once.",
} as const;
const EXPIRED = { status: 403, code: "subscription_expired", description: "The subscription of this API key has expired." } as const;

/** What authentication and entitlement answer with, for the OpenAPI document; `plan_required` only where a route limits plans. */
export function authProblems(limitsPlans: boolean): DocumentedProblem[] {
  const problems: DocumentedProblem[] = [CONFLICTING, MISSING, INVALID, EXPIRED];
  if (limitsPlans) problems.push({ status: 403, code: "plan_required", description: "The key's plan may not use this endpoint; requiredPlans lists those that may." });
  return problems;
}

/**
 * The key from `X-API-Key` or `Authorization: Bearer <key>` (what MCP
 * clients and most HTTP tools send), with the same rules either way.
 * Two different keys are refused rather than one of them picked: which one
 * the caller meant is a guess, and RFC 6750 (3.1) calls a token sent by more
 * than one method an `invalid_request`, a 400. An `Authorization` of another
 * scheme (a proxy's Basic credentials) is not ours and is left alone.
 */
export function authenticate(req: IncomingMessage, keyStore: KeyStore): KeyRecord {
  const header = req.headers[API_KEY_HEADER];
  const fromHeader = typeof header === "string" && header.trim() !== "" ? header.trim() : undefined;
  const fromBearer = bearerToken(req.headers.authorization);
  if (fromHeader !== undefined && fromBearer !== undefined && fromHeader !== fromBearer) {
    throw new HttpError(CONFLICTING.status, CONFLICTING.code, CONFLICTING.description);
  }
  const presented = fromHeader ?? fromBearer;
  if (presented === undefined) throw new HttpError(MISSING.status, MISSING.code, MISSING.description, { headers: CHALLENGE });
  const record = keyStore.verify(presented);
  // A revoked key is just an invalid key: the caller learns nothing more.
  if (record === undefined || record.revokedAt !== null) {
    throw new HttpError(INVALID.status, INVALID.code, INVALID.description, { headers: CHALLENGE });
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
