/** A stand-in on 127.0.0.1:0 with the test corpus, and clients that never really sleep between retries. */
import { createYouTubeClient, type YouTubeClient, type YouTubeClientOptions } from "../../../pipeline/youtube/index.js";
import { startStandin, type Standin } from "../../../scripts/youtube-standin/server.js";
import { testCorpus } from "./records.js";

export interface StandinHarness {
  standin: Standin;
  /** Delays the clients asked to sleep, in order. */
  sleeps: number[];
  client(options?: YouTubeClientOptions): YouTubeClient;
}

export async function startHarness(now = Date.UTC(2026, 0, 15, 12)): Promise<StandinHarness> {
  const standin = await startStandin({ corpus: testCorpus().corpus, now: () => now });
  const sleeps: number[] = [];
  return {
    standin,
    sleeps,
    client: (options = {}) =>
      createYouTubeClient({
        origin: standin.origin,
        timeoutMs: 5_000,
        random: () => 0.5,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        ...options,
      }),
  };
}
