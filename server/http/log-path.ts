/**
 * The request path as logged. A client that puts its API key in the path
 * (a wrong URL template, `/v1/transcript/<key>`) must not have the key land in
 * the access log: anything shaped like a key keeps its key id and loses its secret.
 */
const KEY_IN_TEXT = /tsk_([0-9a-f]{8})_[A-Za-z0-9_-]+/g;

export function loggablePath(path: string): string {
  return path.replace(KEY_IN_TEXT, "tsk_$1_[redacted]");
}
