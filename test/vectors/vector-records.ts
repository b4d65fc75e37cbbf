/** Records for the embedding tests: `count` videos of a few minutes each, their words drawn deterministically from a small vocabulary. */
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { makeVideo } from "../helpers/records.js";

const WORDS = "river mill sea light energy leaf plant garden water stone bridge city music voice story night morning road field forest".split(" ");

export function vectorRecords(count: number, first = 1): VideoRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const n = first + i;
    // A small LCG seeded by the video's number: no two chunks share their text.
    let seed = n * 2654435761;
    const words = Array.from({ length: 240 }, () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return WORDS[seed % WORDS.length]!;
    });
    return makeVideo(n, { text: `video ${n} ${words.join(" ")}` });
  });
}
