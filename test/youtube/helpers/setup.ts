/**
 * A stand-in on 127.0.0.1:0 with the test corpus and the project's fixture
 * videos (plus the recorded ones when given `recordingsDir`), and clients
 * that never really sleep between retries.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createYouTubeClient, type YouTubeClient, type YouTubeClientOptions } from "../../../pipeline/youtube/index.js";
import { startStandin, type Standin } from "../../../scripts/youtube-standin/server.js";
import { testCorpus } from "./records.js";

export interface StandinHarness {
  standin: Standin;
  /** Delays the clients asked to sleep, in order. */
  sleeps: number[];
  client(options?: YouTubeClientOptions): YouTubeClient;
}

export interface HarnessOptions {
  now?: number;
  /** Also serve the recorded YouTube responses in this folder. */
  recordingsDir?: string;
}

export async function startHarness(options: HarnessOptions = {}): Promise<StandinHarness> {
  const now = options.now ?? Date.UTC(2026, 0, 15, 12);
  const standin = await startStandin({
    corpus: testCorpus().corpus,
    now: () => now,
    ...(options.recordingsDir === undefined ? {} : { recordingsDir: options.recordingsDir }),
  });
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

/**
 * One stand-in for a test file: started before its tests, closed after them,
 * faults, counters and recorded sleeps cleared before each test. `onReady`
 * receives it once started.
 */
export function useHarness(onReady: (harness: StandinHarness) => void, options: HarnessOptions = {}): void {
  let harness: StandinHarness | undefined;
  beforeAll(async () => {
    harness = await startHarness(options);
    onReady(harness);
  });
  afterAll(() => harness?.standin.close());
  beforeEach(() => {
    harness?.standin.setFault(null);
    harness?.standin.stats.reset();
    if (harness) harness.sleeps.length = 0;
  });
}
