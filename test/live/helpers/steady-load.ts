/**
 * Clients requesting a server's paths one after another until stopped, each
 * answer other than 200 (or a request that fails) recorded: for tests that
 * change what a server serves while it serves.
 */
import { call } from "../../server/helpers/http.js";

export interface SteadyLoad {
  /** Stops the clients and resolves once each has its last answer. */
  stop(): Promise<{ requests: number; failures: string[] }>;
}

export function steadyLoad(baseUrl: string, key: string, paths: readonly string[], clients: number): SteadyLoad {
  let running = true;
  let requests = 0;
  const failures: string[] = [];
  const client = async (n: number): Promise<void> => {
    for (let i = n; running; i++) {
      const p = paths[i % paths.length]!;
      try {
        const res = await call(baseUrl, p, { key });
        requests++;
        if (res.status !== 200) failures.push(`${p} → ${res.status} ${JSON.stringify(res.body)}`);
      } catch (error) {
        failures.push(`${p} → ${String(error)}`);
      }
    }
  };
  const done = Array.from({ length: clients }, (_, n) => client(n));
  return {
    async stop() {
      running = false;
      await Promise.all(done);
      return { requests, failures };
    },
  };
}
