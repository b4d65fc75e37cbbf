/**
 * Which kind of caption track a request asks for: `any` (the manual track
 * when the language has one, else the auto-generated one: the choice every
 * request made before there was a choice), `manual` or `generated`. Stored
 * lookups, the live fetch's track choice and its caches all apply it.
 */

export const TRACK_KINDS = ["any", "manual", "generated"] as const;
export type TrackKind = (typeof TRACK_KINDS)[number];

/** Whether a track (manual or auto-generated) is of the kind asked for. */
export function isOfKind(isGenerated: boolean, kind: TrackKind): boolean {
  return kind === "any" || isGenerated === (kind === "generated");
}
