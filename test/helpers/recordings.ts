/**
 * Whether this run has the recorded YouTube responses. `YOUTUBE_RECORDINGS_DIR`
 * names their folder (absolute, or relative to the repository root, e.g.
 * `../shared/fixtures/youtube`). Unset: the tests over them are skipped (the
 * global setup prints why, once a run). Set to a folder that is missing or
 * lacks a recorded file: an error, so a run that asked for them cannot skip
 * them by accident.
 */
import { describe } from "vitest";
import { recordingsProblem, resolveFromRepo } from "../../scripts/youtube-standin/fixtures.js";

export const RECORDINGS_ENV = "YOUTUBE_RECORDINGS_DIR";

export const RECORDINGS_SKIPPED = `skipped: recorded YouTube responses (set ${RECORDINGS_ENV} to ../shared/fixtures/youtube to run them)`;

/** The recordings folder `env` names, as an absolute path; undefined when unset or empty; throws when it cannot serve. */
export function recordingsDirFrom(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = env[RECORDINGS_ENV];
  if (value === undefined || value === "") return undefined;
  const dir = resolveFromRepo(value);
  const problem = recordingsProblem(dir);
  if (problem !== undefined) throw new Error(`${RECORDINGS_ENV}=${value}: ${problem}`);
  return dir;
}

/** This run's recordings folder, or undefined when the recorded tests are skipped. */
export const recordingsDir = recordingsDirFrom(process.env);

/** `describe` for tests over the recorded responses: skipped when this run has none. */
export const describeRecorded = describe.skipIf(recordingsDir === undefined);
