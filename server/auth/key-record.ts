/** An API key as the store describes it: never the key itself, never its hash. */
import type { Plan } from "../config.js";

export interface KeyRecord {
  /** 8 hex characters; the public part of the key, safe to log. */
  keyId: string;
  name: string;
  plan: Plan;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC, or null for a key that never expires. */
  expiresAt: string | null;
  /** ISO 8601 UTC, or null while the key is active. */
  revokedAt: string | null;
}
