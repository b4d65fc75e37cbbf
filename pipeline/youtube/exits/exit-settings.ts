/**
 * The exit policy the YOUTUBE_EXIT_* settings describe, for the origin being
 * fetched from: `auto` paces conservatively against youtube.com and leaves
 * any other origin (the local stand-in, a mirror of one's own) unpaced.
 */
import { DEFAULT_EXIT_POLICY, type ExitPolicy } from "./exit-policy.js";

export const YOUTUBE_ORIGIN = "https://www.youtube.com";

/** `auto` against youtube.com: 12 requests a minute (4 transcripts), 2 in flight; elsewhere unpaced, 64 in flight. */
export const AUTO_AGAINST_YOUTUBE = { requestsPerMinute: 12, maxInFlight: 2 } as const;
export const AUTO_ELSEWHERE = { requestsPerMinute: 0, maxInFlight: 64 } as const;

export interface ExitSettings {
  youtubeExitRate: number | "auto";
  youtubeExitInFlight: number | "auto";
  youtubeExitCoolDownSeconds: number;
  youtubeExitCoolDownMaxSeconds: number;
  youtubeExitDeadAfter: number;
}

export function exitPolicyFromSettings(settings: ExitSettings, origin: string): ExitPolicy {
  const auto = new URL(origin).origin === YOUTUBE_ORIGIN ? AUTO_AGAINST_YOUTUBE : AUTO_ELSEWHERE;
  return {
    ...DEFAULT_EXIT_POLICY,
    requestsPerMinute: settings.youtubeExitRate === "auto" ? auto.requestsPerMinute : settings.youtubeExitRate,
    maxInFlight: settings.youtubeExitInFlight === "auto" ? auto.maxInFlight : settings.youtubeExitInFlight,
    coolDownMs: settings.youtubeExitCoolDownSeconds * 1000,
    coolDownMaxMs: settings.youtubeExitCoolDownMaxSeconds * 1000,
    deadAfterFailures: settings.youtubeExitDeadAfter,
  };
}
