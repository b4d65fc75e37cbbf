/**
 * The name an exit goes by in a shared state store and in /metrics: the
 * proxy's URL without credentials, or `direct:<host name>` for a host's own
 * route (two hosts' direct routes are two exits). A proxy URL with a user name
 * gets a short hash of that name, since providers put the session (the exit
 * address) there; the password never enters the key.
 */
import { createHash } from "node:crypto";
import { hostname } from "node:os";

export function proxyExitKey(proxyUrl: string): string {
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch {
    // The client validates proxy URLs; a key that names no credentials is still a key.
    return "proxy:unreadable";
  }
  const base = `${url.protocol}//${url.host}`;
  if (url.username === "") return base;
  const user = createHash("sha256").update(decodeURIComponent(url.username)).digest("hex").slice(0, 10);
  return `${base}#user-${user}`;
}

/** The direct route of the host `name` (default: this machine's host name). */
export function directExitKey(name: string = hostname()): string {
  return `direct:${name}`;
}
