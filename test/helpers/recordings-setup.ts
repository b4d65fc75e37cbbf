/**
 * Vitest global setup: says once a run whether the tests over the recorded
 * YouTube responses run, and fails the run at once when
 * YOUTUBE_RECORDINGS_DIR names a folder that cannot serve them.
 */
import { RECORDINGS_ENV, RECORDINGS_SKIPPED, recordingsDirFrom } from "./recordings.js";

export default function setup(): void {
  const dir = recordingsDirFrom(process.env);
  process.stdout.write(dir === undefined ? `${RECORDINGS_SKIPPED}\n` : `recorded YouTube responses: ${RECORDINGS_ENV}=${dir}\n`);
}
