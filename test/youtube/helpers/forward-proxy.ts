/**
 * The stand-in's exit proxy, named, for the rotation tests: it logs the
 * request line of every request it carried so a test can see which call left
 * through which proxy.
 */
import { startExitProxy, type ExitProxy } from "../../../scripts/youtube-standin/exit-proxy.js";

export interface ProxyLogEntry {
  proxy: string;
  requestLine: string;
}

export type ForwardProxy = ExitProxy;

export function startForwardProxy(name: string, log: ProxyLogEntry[]): Promise<ForwardProxy> {
  return startExitProxy({ localAddress: "127.0.0.1", onRequest: (requestLine) => log.push({ proxy: name, requestLine }) });
}
