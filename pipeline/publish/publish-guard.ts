/**
 * The check before a set replaces the served one: a set that would drop most
 * of what is served (under half of its transcripts, or all of them) is
 * refused unless the operator forces it. A set in place of the generated demo
 * needs only to hold something.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACT_FILES, DEMO_DATASET, type Manifest } from "../artifact/contract/index.js";
import { dataDirLayout } from "../artifact/layout/index.js";

/** The share of the served set's transcripts a new set must keep. */
export const MIN_KEPT_SHARE = 0.5;

export class PublishRefused extends Error {
  override name = "PublishRefused";
}

type Served = Pick<Manifest, "dataset" | "builtAt" | "counts">;

function servedManifest(dataDir: string): Served | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDirLayout(dataDir).current, ARTIFACT_FILES.manifest), "utf8")) as Served;
  } catch {
    return undefined;
  }
}

/** Throws PublishRefused, saying what would be lost, when `next` may not replace the set `current` points at. */
export function checkPublish(dataDir: string, next: Pick<Manifest, "counts">, options: { force?: boolean } = {}): void {
  const served = servedManifest(dataDir);
  if (!served || options.force) return;
  const had = served.counts.transcripts;
  const has = next.counts.transcripts;
  const emptied = had > 0 && has === 0;
  const shrunk = served.dataset !== DEMO_DATASET && has < had * MIN_KEPT_SHARE;
  if (!emptied && !shrunk) return;
  const lost = Math.max(0, had - has);
  throw new PublishRefused(
    `refusing to publish: the new set has ${has} transcripts (${next.counts.videos} videos), the served set ` +
      `(dataset ${served.dataset}, built ${served.builtAt}) has ${had} (${served.counts.videos} videos); publishing would drop ` +
      `${lost} transcripts (${had > 0 ? Math.round((lost / had) * 100) : 0}%). Nothing was published. Run again with --force to publish it anyway.`,
  );
}
