/** Whether a TCP service (Redis, PostgreSQL) answers at a URL's host and port, so a phase that needs it can be skipped with one line. */
import net from "node:net";

export function reachable(url: string, defaultPort: number, timeoutMs = 1_000): Promise<boolean> {
  const parsed = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ port: Number(parsed.port || defaultPort), host: parsed.hostname });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** The URL without its credentials, for a report line. */
export function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}
