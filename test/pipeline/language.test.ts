/**
 * The one language rule (pipeline/artifact/contract/language.ts) and the places that apply it
 * without a server: which upstream track answers a request, and the stored
 * lookup over a real database of the artifact schema.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { languageKey, sameLanguage } from "../../pipeline/artifact/contract/language.js";
import { chooseTrack } from "../../pipeline/youtube/track-choice.js";
import type { CaptionTrack } from "../../pipeline/youtube/player.js";
import { TranscriptTables } from "../../server/data/transcript-tables.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";

/** Language tags of the shape the API accepts: a 2-3 letter language and subtags of 2-8 letters or digits. */
const subtag = fc.stringMatching(/^[A-Za-z0-9]{2,8}$/);
const tag = fc
  .tuple(fc.stringMatching(/^[A-Za-z]{2,3}$/), fc.array(subtag, { maxLength: 3 }))
  .map(([language, rest]) => [language, ...rest].join("-"));
/** The same tag with each letter's case flipped at random. */
const respelled = (value: string) =>
  fc.array(fc.boolean(), { minLength: value.length, maxLength: value.length }).map((flips) =>
    [...value].map((c, i) => (flips[i] ? c.toUpperCase() : c.toLowerCase())).join(""),
  );

describe("sameLanguage", () => {
  it("ignores case: any respelling of a tag is the same language, with the same key", () => {
    fc.assert(
      fc.property(
        tag.chain((t) => fc.tuple(fc.constant(t), respelled(t))),
        ([a, b]) => {
          expect(sameLanguage(a, b)).toBe(true);
          expect(languageKey(a)).toBe(languageKey(b));
          expect(languageKey(languageKey(a))).toBe(languageKey(a));
        },
      ),
    );
  });

  it("compares whole tags: a tag never matches one with more or other subtags", () => {
    fc.assert(
      fc.property(tag, subtag, (t, extra) => {
        expect(sameLanguage(t, `${t}-${extra}`)).toBe(false);
        expect(sameLanguage(`${t}-${extra}`, t)).toBe(false);
      }),
    );
    expect(sameLanguage("en", "en-GB")).toBe(false);
    expect(sameLanguage("pt-BR", "pt-PT")).toBe(false);
    expect(sameLanguage("en-us", "en-US")).toBe(true);
    expect(sameLanguage("DE", "de")).toBe(true);
  });

  it("folds only ASCII letters: a look-alike outside ASCII is another code", () => {
    expect(sameLanguage("\u0130t", "it")).toBe(false);
    expect(languageKey("zh-Hans")).toBe("zh-hans");
  });
});

function track(languageCode: string, isGenerated: boolean, isTranslatable = true): CaptionTrack {
  return { baseUrl: `https://example.invalid/${languageCode}/${isGenerated}`, languageCode, language: `name of ${languageCode}`, isGenerated, isTranslatable };
}
const TRANSLATIONS = [
  { languageCode: "fr", language: "French" },
  { languageCode: "zh-Hans", language: "Chinese (Simplified)" },
];

describe("chooseTrack", () => {
  const tracks = [track("en-GB", false), track("en", true), track("en", false), track("de", true), track("en-US", false)];

  it("takes the track whose code is the requested one in any spelling, manual before auto-generated", () => {
    fc.assert(
      fc.property(fc.constantFrom("en", "de", "en-US", "en-GB").chain(respelled), (requested) => {
        const choice = chooseTrack(tracks, TRANSLATIONS, [requested]);
        expect(sameLanguage(choice.languageCode, requested)).toBe(true);
        expect(choice.translateTo).toBeUndefined();
        expect(choice.track).toBe(tracks.find((t) => sameLanguage(t.languageCode, requested) && !t.isGenerated) ?? tracks.find((t) => sameLanguage(t.languageCode, requested)));
      }),
    );
    expect(chooseTrack(tracks, TRANSLATIONS, ["en"]).track).toBe(tracks[2]);
  });

  it("translates into a language YouTube offers in any spelling, coded as YouTube codes it", () => {
    const choice = chooseTrack(tracks, TRANSLATIONS, ["ZH-hans"]);
    expect(choice).toMatchObject({ languageCode: "zh-Hans", language: "Chinese (Simplified)", isGenerated: true, translateTo: TRANSLATIONS[1] });
  });

  it("asked for one kind, takes a real track of that kind, else track_not_available; any is the choice above", () => {
    expect(chooseTrack(tracks, TRANSLATIONS, ["en"], false, "generated").track).toBe(tracks[1]);
    expect(chooseTrack(tracks, TRANSLATIONS, ["en"], false, "manual").track).toBe(tracks[2]);
    expect(chooseTrack(tracks, TRANSLATIONS, ["en"], false, "any").track).toBe(tracks[2]);
    expect(chooseTrack(tracks, TRANSLATIONS, ["DE"], false, "generated").track).toBe(tracks[3]);
    expect(() => chooseTrack(tracks, TRANSLATIONS, ["de"], true, "manual")).toThrow(
      expect.objectContaining({ code: "track_not_available", kind: "permanent", usedProxy: true, availableLanguages: expect.arrayContaining([{ languageCode: "de", language: "name of de", isGenerated: true }]) }),
    );
    expect(() => chooseTrack(tracks, TRANSLATIONS, ["en-GB"], false, "generated")).toThrow(expect.objectContaining({ code: "track_not_available" }));
  });

  it("asked for one kind, counts a translation as auto-generated, and a language with nothing to give stays language_not_available", () => {
    expect(chooseTrack(tracks, TRANSLATIONS, ["fr"], false, "generated")).toMatchObject({ languageCode: "fr", isGenerated: true, translateTo: TRANSLATIONS[0] });
    expect(() => chooseTrack(tracks, TRANSLATIONS, ["fr"], false, "manual")).toThrow(expect.objectContaining({ code: "track_not_available" }));
    for (const kind of ["any", "manual", "generated"] as const) {
      expect(() => chooseTrack(tracks, TRANSLATIONS, ["sw"], false, kind), kind).toThrow(expect.objectContaining({ code: "language_not_available" }));
    }
  });

  it("does not take en-GB or en-US for en: without an en track, en is a translation or not available", () => {
    const regional = [track("en-GB", false, false), track("en-US", false, false)];
    expect(() => chooseTrack(regional, [{ languageCode: "en", language: "English" }], ["en"])).toThrow(
      expect.objectContaining({ code: "language_not_available" }),
    );
  });
});

describe("the stored lookup", () => {
  it("finds a stored track under any spelling of its code, and only under its own code", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "language-"));
    try {
      const video = makeVideo({
        videoId: "langs000001",
        transcripts: [transcript("en-US", "English (United States)", false, ["american"]), transcript("de", "German", true, ["deutsch"])],
      });
      await buildArtifacts({ records: [video], outDir: dir, dataset: "language-test" });
      const db = new Database(path.join(dir, ARTIFACT_FILES.database), { readonly: true });
      try {
        const tables = new TranscriptTables(db);
        for (const lang of ["en-us", "EN-US", "en-US"]) {
          const found = tables.getTranscript(video.videoId, lang);
          expect(found.kind === "found" && found.stored.transcript.languageCode, lang).toBe("en-US");
        }
        for (const lang of ["DE", "de"]) {
          const found = tables.getTranscript(video.videoId, lang);
          expect(found.kind === "found" && found.stored.transcript.languageCode, lang).toBe("de");
        }
        expect(tables.getTranscript(video.videoId, "en")).toEqual(expect.objectContaining({ kind: "other-languages", languages: ["en-US", "de"] }));
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
