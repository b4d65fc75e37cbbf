/**
 * A long transcript read in pieces: each answer carries at most `maxChars`
 * characters and a cursor to the next piece; the pieces, in order, join into
 * exactly the whole (no gap, no overlap). Text is cut after the last line
 * break in the second half of the piece, else after the last space there,
 * never inside a UTF-16 surrogate pair; segments (format json) are never cut.
 * A cursor names the document it belongs to (a hash of it), so a cursor of
 * another video, format or window, or of a transcript that changed since, is
 * refused rather than read at the wrong place.
 */
import { createHash } from "node:crypto";
import { HttpError } from "../problem/http-error.js";

export interface Piece<T> {
  /** The piece: a slice of the text, or of the segments. */
  part: T;
  /** Where the piece starts and ends (characters or segments), and the whole's size. */
  start: number;
  end: number;
  total: number;
  /** Absent on the last piece. */
  nextCursor?: string;
}

export function textPiece(document: string, identity: string, cursor: string | undefined, maxChars: number): Piece<string> {
  const fingerprint = fingerprintOf(identity, document);
  const start = positionOf(cursor, fingerprint, document.length);
  let end = Math.min(document.length, start + maxChars);
  if (end < document.length) {
    const floor = start + Math.floor(maxChars / 2);
    const newline = document.lastIndexOf("\n", end - 1);
    const breakAt = newline >= floor ? newline : document.lastIndexOf(" ", end - 1);
    if (breakAt >= floor) end = breakAt + 1;
    else if (isHighSurrogate(document.charCodeAt(end - 1)) && end - 1 > start) end--;
  }
  return withCursor({ part: document.slice(start, end), start, end, total: document.length }, fingerprint);
}

/** Whole items while their JSON fits in `maxChars` (always at least one). */
export function itemPiece<T>(items: readonly T[], identity: string, cursor: string | undefined, maxChars: number): Piece<T[]> {
  const fingerprint = fingerprintOf(identity, JSON.stringify(items));
  const start = positionOf(cursor, fingerprint, items.length);
  let end = start;
  let size = 2;
  while (end < items.length) {
    const next = JSON.stringify(items[end]).length + (end > start ? 1 : 0);
    if (end > start && size + next > maxChars) break;
    size += next;
    end++;
  }
  return withCursor({ part: items.slice(start, end), start, end, total: items.length }, fingerprint);
}

function withCursor<T>(piece: Piece<T>, fingerprint: string): Piece<T> {
  if (piece.end < piece.total) piece.nextCursor = Buffer.from(`${piece.end}.${fingerprint}`).toString("base64url");
  return piece;
}

function fingerprintOf(identity: string, document: string): string {
  return createHash("sha256").update(identity).update("\u0000").update(document).digest("base64url").slice(0, 16);
}

function positionOf(cursor: string | undefined, fingerprint: string, total: number): number {
  if (cursor === undefined) return 0;
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{16})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const position = match === null ? NaN : Number(match[1]);
  if (match === null || !(position > 0 && position < total)) throw invalidCursor("is not a cursor this tool gave");
  if (match[2] !== fingerprint) {
    throw invalidCursor("belongs to another transcript, format or window, or the transcript changed since; start again without a cursor");
  }
  return position;
}

function invalidCursor(message: string): HttpError {
  return new HttpError(400, "invalid_parameter", "Invalid parameter: cursor.", { errors: [{ param: "cursor", message }] });
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
