/**
 * Step 3: which caption track answers a request for some languages.
 *
 * The rule, in order:
 *  1. for each requested code in order, a manually created track with
 *     that code (`sameLanguage`: case-insensitive, and `en` does not match
 *     `en-GB`), else an auto-generated one;
 *  2. otherwise, for each requested code in order that YouTube offers in
 *     `translationLanguages`: the first translatable track (in YouTube's
 *     order) machine-translated with `&tlang=<code>`; this counts as
 *     generated and is named and coded from `translationLanguages`;
 *  3. otherwise `language_not_available`, listing the tracks there are.
 * Step 2 runs only after step 1 failed for every requested code, so a real
 * track in a later-listed language beats a translation into an earlier one.
 *
 * Asked for one kind (`manual` or `generated`), the choice above stands when
 * it is of that kind; otherwise the first real track of that kind in the
 * requested codes, else `track_not_available`. So `language_not_available`
 * means the same whatever the kind: nothing at all in those languages.
 */
import { isOfKind, sameLanguage, type TrackKind } from "../artifact/contract/index.js";
import type { AvailableLanguage } from "./errors.js";
import { YouTubeError } from "./errors.js";
import type { CaptionTrack, TranslationLanguage } from "./player.js";

export interface TrackChoice {
  track: CaptionTrack;
  /** Set when the text is a translation of `track`. */
  translateTo?: TranslationLanguage;
  languageCode: string;
  language: string;
  isGenerated: boolean;
}

export function chooseTrack(
  tracks: readonly CaptionTrack[],
  translationLanguages: readonly TranslationLanguage[],
  requested: readonly string[],
  usedProxy = false,
  kind: TrackKind = "any",
): TrackChoice {
  const choice = chooseAnyTrack(tracks, translationLanguages, requested, usedProxy);
  if (isOfKind(choice.isGenerated, kind)) return choice;
  for (const code of requested) {
    const track = tracks.find((t) => sameLanguage(t.languageCode, code) && isOfKind(t.isGenerated, kind));
    if (track) return { track, languageCode: track.languageCode, language: track.language, isGenerated: track.isGenerated };
  }
  throw new YouTubeError("track_not_available", `No ${kind} track in the requested languages`, { availableLanguages: availableLanguagesOf(tracks), usedProxy });
}

function chooseAnyTrack(
  tracks: readonly CaptionTrack[],
  translationLanguages: readonly TranslationLanguage[],
  requested: readonly string[],
  usedProxy: boolean,
): TrackChoice {
  for (const code of requested) {
    const track =
      tracks.find((t) => sameLanguage(t.languageCode, code) && !t.isGenerated) ??
      tracks.find((t) => sameLanguage(t.languageCode, code) && t.isGenerated);
    if (track) {
      return { track, languageCode: track.languageCode, language: track.language, isGenerated: track.isGenerated };
    }
  }
  const source = tracks.find((t) => t.isTranslatable);
  if (source) {
    for (const code of requested) {
      const target = translationLanguages.find((l) => sameLanguage(l.languageCode, code));
      if (target) {
        return { track: source, translateTo: target, languageCode: target.languageCode, language: target.language, isGenerated: true };
      }
    }
  }
  const availableLanguages = availableLanguagesOf(tracks);
  throw new YouTubeError(
    "language_not_available",
    `No transcript in the requested languages; available: ${availableLanguages.map((l) => l.languageCode).join(", ")}`,
    { availableLanguages, usedProxy },
  );
}

export function availableLanguagesOf(tracks: readonly CaptionTrack[]): AvailableLanguage[] {
  return tracks.map((t) => ({ languageCode: t.languageCode, language: t.language, isGenerated: t.isGenerated }));
}
