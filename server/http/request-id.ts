/** Request ids: a sane incoming `X-Request-Id` is kept so logs join up across proxies; anything else is replaced. */
import { randomUUID } from "node:crypto";
import { parseKeyId } from "../auth/api-key.js";

const SANE_REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  // An API key pasted into the wrong header would otherwise be echoed and logged.
  if (typeof header === "string" && SANE_REQUEST_ID.test(header) && parseKeyId(header) === undefined) return header;
  return randomUUID();
}
