/** Weak entity tags over a representation, and If-None-Match matching (weak comparison, RFC 9110 13.1.2). */
import { createHash } from "node:crypto";

/** Weak, because compressed and uncompressed bodies share it; over the serialised representation. */
export function weakEtag(serialised: string | Uint8Array): string {
  const digest = createHash("sha256").update(serialised).digest("base64url").slice(0, 27);
  return `W/"${digest}"`;
}

export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const target = opaque(etag);
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === target);
}
