/**
 * Player responses and pages the stand-in serves from files, by video id.
 *
 * - The project's own fixtures in test/fixtures/youtube (always served; see
 *   the README there): one small file per upstream outcome the client handles.
 * - The recorded YouTube responses, when the stand-in is given a recordings
 *   folder (`../shared/fixtures/youtube`; read in place, never copied into
 *   this repository). A stand-in with recordings also answers its captcha,
 *   bot-check and consent faults with the recorded pages.
 *
 * Caption URLs in a player file name the video it was written for; they are
 * rewritten to the id asked for, so per-video request counts stay with that id.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface FixtureSet {
  /** Absolute folder of the files. */
  dir: string;
  /** Video id → its player response file. */
  players: Readonly<Record<string, string>>;
  /** The watch page served for every video id of the set. */
  watchPage: string;
  /** The timedtext document served as is for the English manual track of `transcriptVideos`. */
  transcript: string;
  transcriptVideos: readonly string[];
  /** What the captcha, bot-check and consent faults answer with. */
  captcha: string;
  botCheck: string;
  consent: string;
  consentInvalid: string;
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The project's own fixtures. */
export const OWN_FIXTURES: FixtureSet = {
  dir: path.join(REPO_ROOT, "test/fixtures/youtube"),
  players: {
    fixtureOKAY: "player-ok.json",
    fixturePOTK: "player-po-token.json",
    fixtureAGED: "player-age-restricted.json",
    fixtureBOTS: "player-bot-check.json",
    fixtureGONE: "player-unavailable.json",
    fixtureUNPL: "player-unplayable.json",
    fixtureNOCC: "player-no-captions.json",
    fixtureNOTR: "player-no-tracks.json",
    fixtureJUNK: "player-no-playability.json",
    fixtureNODT: "player-no-details.json",
  },
  watchPage: "watch.html",
  transcript: "transcript.xml",
  transcriptVideos: ["fixtureOKAY", "fixturePOTK"],
  captcha: "captcha.html",
  botCheck: "player-bot-check.json",
  consent: "consent.html",
  consentInvalid: "consent-invalid.html",
};

/**
 * The recorded responses in `dir` (their README there says what each is).
 * Watch page: always youtube.html.static, the page of GJLlxj_dtq8.
 *
 * | video id      | player response file                                | client outcome            |
 * |---------------|-----------------------------------------------------|---------------------------|
 * | `GJLlxj_dtq8` | youtube.innertube.json.static                       | transcript                |
 * | `fx_altered_` | youtube_altered_user_agent.innertube.json.static    | transcript                |
 * | `fx_ww1_nlen` | youtube_ww1_nl_en.innertube.json.static             | en only; others translate |
 * | `fx_potoken_` | youtube_po_token_required.innertube.json.static     | `po_token_required` (en)  |
 * | `fx_age_rstr` | youtube_age_restricted.innertube.json.static        | `age_restricted`          |
 * | `fx_botcheck` | youtube_request_blocked.innertube.json.static       | `request_blocked`         |
 * | `fx_unavail_` | youtube_video_unavailable.innertube.json.static     | `video_unavailable`       |
 * | `fx_unplayab` | youtube_unplayable.innertube.json.static            | `unplayable`              |
 * | `fx_nocaps_1` | youtube_transcripts_disabled.innertube.json.static  | `transcripts_disabled`    |
 * | `fx_nocaps_2` | youtube_transcripts_disabled2.innertube.json.static | `transcripts_disabled`    |
 */
export function recordedFixtures(dir: string): FixtureSet {
  return {
    dir,
    players: {
      GJLlxj_dtq8: "youtube.innertube.json.static",
      fx_altered_: "youtube_altered_user_agent.innertube.json.static",
      fx_ww1_nlen: "youtube_ww1_nl_en.innertube.json.static",
      fx_potoken_: "youtube_po_token_required.innertube.json.static",
      fx_age_rstr: "youtube_age_restricted.innertube.json.static",
      fx_botcheck: "youtube_request_blocked.innertube.json.static",
      fx_unavail_: "youtube_video_unavailable.innertube.json.static",
      fx_unplayab: "youtube_unplayable.innertube.json.static",
      fx_nocaps_1: "youtube_transcripts_disabled.innertube.json.static",
      fx_nocaps_2: "youtube_transcripts_disabled2.innertube.json.static",
    },
    watchPage: "youtube.html.static",
    transcript: "transcript.xml.static",
    transcriptVideos: ["GJLlxj_dtq8", "fx_altered_", "fx_potoken_"],
    captcha: "youtube_too_many_requests.html.static",
    botCheck: "youtube_request_blocked.innertube.json.static",
    consent: "youtube_consent_page.html.static",
    consentInvalid: "youtube_consent_page_invalid.html.static",
  };
}

/** Every file a set names. */
export function filesOf(set: FixtureSet): string[] {
  const names = [set.watchPage, set.transcript, set.captcha, set.botCheck, set.consent, set.consentInvalid, ...Object.values(set.players)];
  return [...new Set(names)].sort();
}

/** A folder given relative to the repository root (or absolute), as an absolute path. */
export function resolveFromRepo(dir: string): string {
  return path.resolve(REPO_ROOT, dir);
}

/**
 * Why `dir` cannot serve as the recordings folder, or undefined when it can:
 * it must exist and hold every file `recordedFixtures` names.
 */
export function recordingsProblem(dir: string): string | undefined {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `${dir} is not a folder`;
  const missing = filesOf(recordedFixtures(dir)).filter((name) => !existsSync(path.join(dir, name)));
  if (missing.length > 0) return `${dir} lacks ${missing.length} recorded file(s): ${missing.join(", ")}`;
  return undefined;
}

export type FaultPage = "captcha" | "botCheck" | "consent" | "consentInvalid";

export class FixtureFiles {
  readonly #sets: readonly FixtureSet[];
  readonly #faultPages: FixtureSet;
  readonly #cache = new Map<string, string>();

  /** Serves the ids of every set; fault pages come from `faultPages`. */
  constructor(sets: readonly FixtureSet[], faultPages: FixtureSet) {
    this.#sets = sets;
    this.#faultPages = faultPages;
  }

  #read(set: FixtureSet, name: string): string {
    const file = path.join(set.dir, name);
    let text = this.#cache.get(file);
    if (text === undefined) {
      text = readFileSync(file, "utf8");
      this.#cache.set(file, text);
    }
    return text;
  }

  #setOf(videoId: string): FixtureSet | undefined {
    return this.#sets.find((set) => Object.hasOwn(set.players, videoId));
  }

  isFixtureVideo(videoId: string): boolean {
    return this.#setOf(videoId) !== undefined;
  }

  watchPage(videoId: string): string | undefined {
    const set = this.#setOf(videoId);
    return set && this.#read(set, set.watchPage);
  }

  faultPage(page: FaultPage): string {
    return this.#read(this.#faultPages, this.#faultPages[page]);
  }

  /** The timedtext document written for a fixture's English manual track, if it has one. */
  englishTranscript(videoId: string): string | undefined {
    const set = this.#setOf(videoId);
    return set?.transcriptVideos.includes(videoId) ? this.#read(set, set.transcript) : undefined;
  }

  /** A fixture's player response, caption URLs pointing at that id. */
  playerResponse(videoId: string): string | undefined {
    const set = this.#setOf(videoId);
    const file = set?.players[videoId];
    if (set === undefined || file === undefined) return undefined;
    return this.#read(set, file).replace(/timedtext\?v=[A-Za-z0-9_-]{11}/g, `timedtext?v=${videoId}`);
  }

  /** A fixture's caption tracks as written: language code, name, generated or not. */
  tracks(videoId: string): { languageCode: string; name: string; isGenerated: boolean }[] {
    const json = this.playerResponse(videoId);
    if (json === undefined) return [];
    const parsed = JSON.parse(json) as {
      captions?: { playerCaptionsTracklistRenderer?: { captionTracks?: { languageCode: string; kind?: string; name?: { runs?: { text: string }[] } }[] } };
    };
    return (parsed.captions?.playerCaptionsTracklistRenderer?.captionTracks ?? []).map((t) => ({
      languageCode: t.languageCode,
      name: t.name?.runs?.[0]?.text ?? t.languageCode,
      isGenerated: t.kind === "asr",
    }));
  }
}
