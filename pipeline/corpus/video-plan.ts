/**
 * The cheap, text-free facts of one video: when it was published, how often
 * it was watched, which caption tracks it has and how long it talks.
 *
 * They come from their own random stream, so listing a channel newest first
 * only needs these few draws per video, not its transcript.
 */
import { createRandom } from "./random.js";

export type TrackPlan =
  /** No captions at all. */
  | "none"
  /** One track in another language (see foreign-words.ts). */
  | "foreign"
  /** A manual English track and an auto-generated one of the same speech. */
  | "both"
  | "manual"
  | "generated";

export interface TrackShares {
  none: number;
  foreign: number;
  both: number;
  manual: number;
  /** The rest: auto-generated English only, the most common case on YouTube. */
}

export interface VideoPlan {
  /** Seconds since the epoch, whole. */
  publishedAt: number;
  viewCount: number;
  tracks: TrackPlan;
  /** Index into FOREIGN_LANGUAGES when `tracks` is "foreign". */
  language: number;
  /** Whether a foreign track is auto-generated. */
  foreignGenerated: boolean;
  /** Words of speech to generate. */
  words: number;
}

const YEAR_SECONDS = 365.25 * 24 * 3600;
const DAY_SECONDS = 24 * 3600;
/** Publication dates span this many years before the reference date. */
export const SPAN_YEARS = 10;
/** Median views of a video a few months old; σ of ln(views) makes the tail reach tens of millions. */
const MEDIAN_VIEWS = 4000;
const VIEWS_SIGMA = 2;
/** σ of ln(words): about 1 gives the long tail of multi-hour talks and streams. */
const WORDS_SIGMA = 1;
/** Bounds of a transcript's words: a short clip to about six hours at 150 words a minute. */
const MIN_WORDS = 40;
const MAX_WORDS = 54_000;
const PLAN_STREAM = 0x91a;

export function planVideo(
  seed: number,
  index: number,
  referenceSeconds: number,
  meanWords: number,
  shares: TrackShares,
  foreignLanguages: number,
): VideoPlan {
  const random = createRandom(seed, index, PLAN_STREAM);
  // More uploads in recent years, as on YouTube: age fraction u^1.5 leans towards the reference date.
  const age = Math.floor(Math.pow(random.float(), 1.5) * SPAN_YEARS * YEAR_SECONDS) + 60;
  const publishedAt = referenceSeconds - age;
  // New videos have not collected their views yet.
  const maturity = 1 - Math.exp(-age / (45 * DAY_SECONDS));
  const viewCount = Math.floor(Math.exp(Math.log(MEDIAN_VIEWS) + VIEWS_SIGMA * random.normal()) * maturity);

  const u = random.float();
  let tracks: TrackPlan;
  if (u < shares.none) tracks = "none";
  else if (u < shares.none + shares.foreign) tracks = "foreign";
  else if (u < shares.none + shares.foreign + shares.both) tracks = "both";
  else if (u < shares.none + shares.foreign + shares.both + shares.manual) tracks = "manual";
  else tracks = "generated";
  const language = random.int(foreignLanguages);
  const foreignGenerated = random.chance(0.5);

  // Log-normal with the requested mean: mean = exp(μ + σ²/2).
  const mu = Math.log(meanWords) - (WORDS_SIGMA * WORDS_SIGMA) / 2;
  const words = Math.min(MAX_WORDS, Math.max(MIN_WORDS, Math.round(Math.exp(mu + WORDS_SIGMA * random.normal()))));
  return { publishedAt, viewCount, tracks, language, foreignGenerated, words };
}
