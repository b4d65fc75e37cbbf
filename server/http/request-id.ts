/** Request ids: a sane incoming `X-Request-Id` is kept so logs join up across proxies; anything else is replaced. */
import { randomUUID } from "node:crypto";

const SANE_REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  if (typeof header === "string" && SANE_REQUEST_ID.test(header)) return header;
  return randomUUID();
}
