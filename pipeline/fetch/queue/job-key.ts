/**
 * The id of a video's fetch job: a name-based UUID (RFC 9562 version 5) of
 * the video id and how many times the pipeline state has tried it. The queue
 * refuses a second job with an id it holds (pg-boss's unique key on queue
 * and id), so a video is queued once whoever enqueues it, however often, and
 * whatever state its job is in; once an attempt's outcome reaches the state,
 * its count moves on and the next run's job gets a new id.
 */
import { createHash } from "node:crypto";

/** A fixed namespace of this project's fetch jobs (a random UUID, chosen once). */
const NAMESPACE = "5b0a6f3e-8c1d-4e27-9f4a-2d6c3b7e1a90";

export function fetchJobId(options: { videoId: string; attempts: number }): string {
  const namespace = Buffer.from(NAMESPACE.replaceAll("-", ""), "hex");
  const hash = createHash("sha1").update(namespace).update(`${options.videoId}#${options.attempts}`).digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
