/** Request ids: a sane incoming `X-Request-Id` is kept so logs join up across proxies; anything else is replaced. */
import { randomUUID } from "node:crypto";
import { redactKeys } from "./log-path.js";

const SANE_REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  // An API key pasted into the wrong header, alone or inside other text, would otherwise be echoed and logged.
  if (typeof header === "string" && SANE_REQUEST_ID.test(header) && redactKeys(header) === header) return header;
  return randomUUID();
}
