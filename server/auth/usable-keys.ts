/**
 * Whether a start serves with any key that works. A DATA_DIR filled by
 * `npm run pipeline -- build` has a set and no key, and then every request
 * that needs one gets 401: the start says so once, with the command that
 * makes one, rather than leave the user to guess from the 401s.
 */
import { DEMO_KEY_NAME, type KeyStore } from "./key-store.js";

/** Keys neither revoked nor expired at `now`, the demo's left out (a start on another set revokes them). */
export function usableKeyCount(keyStore: Pick<KeyStore, "list">, now: number = Date.now()): number {
  return keyStore
    .list()
    .filter((key) => key.name !== DEMO_KEY_NAME && key.revokedAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > now)).length;
}

export const NO_USABLE_KEY =
  "no usable API key (none was made, or all are revoked or expired): every request that needs one gets 401 until one is made with npm run keys -- create --plan pro --name <name>";
