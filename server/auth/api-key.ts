/**
 * The key format `tsk_<keyId>_<secret>`: an 8-hex key id (the row to look up,
 * safe to log) and a 32-byte base64url secret. Only sha256 of the full key is
 * stored, so a leaked keys.db does not leak keys.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const KEY_PREFIX = "tsk_";
const KEY_PATTERN = /^tsk_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;

export function generateKeyId(): string {
  return randomBytes(4).toString("hex");
}

export function generateKey(keyId: string): string {
  return `${KEY_PREFIX}${keyId}_${randomBytes(32).toString("base64url")}`;
}

/** The key id of a well-formed key, else undefined. */
export function parseKeyId(key: string): string | undefined {
  return KEY_PATTERN.exec(key)?.[1];
}

export function hashKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** Constant-time comparison of a presented key against a stored hash. */
export function keyMatchesHash(key: string, storedHash: Uint8Array): boolean {
  const presented = hashKey(key);
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}
