/** Loopback ports for the servers tests start themselves (redis-server, haproxy). */
import net from "node:net";

export { freePort } from "../../../scripts/bench/server-process.js";

/** Whether something accepts TCP connections on 127.0.0.1:`port` now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
