/**
 * The embedded demo dataset that `npm start` builds on a fresh clone: a few
 * thousand generated videos in a handful of channels, the same on every
 * machine.
 */
import { createSyntheticCorpus, type SyntheticCorpus, type SyntheticCorpusOptions } from "./synthetic.js";

export const DEMO_CORPUS_OPTIONS = {
  seed: 20261122,
  videos: 3000,
  channels: 6,
} as const satisfies SyntheticCorpusOptions;

export function createDemoCorpus(): SyntheticCorpus {
  return createSyntheticCorpus({ ...DEMO_CORPUS_OPTIONS });
}
