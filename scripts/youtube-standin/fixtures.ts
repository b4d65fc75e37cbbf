/**
 * The recorded YouTube responses in ../shared/fixtures/youtube, served in
 * place (read on first use, never copied into this repository).
 *
 * Video ids that serve a recording (watch page: always youtube.html.static,
 * the page of GJLlxj_dtq8, with its API key):
 *
 * | video id      | player response file                                   | client outcome            |
 * |---------------|--------------------------------------------------------|---------------------------|
 * | `GJLlxj_dtq8` | youtube.innertube.json.static                          | transcript                |
 * | `fx_altered_` | youtube_altered_user_agent.innertube.json.static       | transcript                |
 * | `fx_ww1_nlen` | youtube_ww1_nl_en.innertube.json.static                | en only; others translate |
 * | `fx_potoken_` | youtube_po_token_required.innertube.json.static        | `po_token_required` (en)  |
 * | `fx_age_rstr` | youtube_age_restricted.innertube.json.static           | `age_restricted`          |
 * | `fx_botcheck` | youtube_request_blocked.innertube.json.static          | `request_blocked`         |
 * | `fx_unavail_` | youtube_video_unavailable.innertube.json.static        | `video_unavailable`       |
 * | `fx_unplayab` | youtube_unplayable.innertube.json.static               | `unplayable`              |
 * | `fx_nocaps_1` | youtube_transcripts_disabled.innertube.json.static     | `transcripts_disabled`    |
 * | `fx_nocaps_2` | youtube_transcripts_disabled2.innertube.json.static    | `transcripts_disabled`    |
 *
 * Caption URLs in the recordings name the recorded video (`v=GJLlxj_dtq8`,
 * `v=F1xioXWb8CY`); they are rewritten to the id asked for, so per-video
 * request counts stay with that id.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURE_PLAYER_FILES: Readonly<Record<string, string>> = {
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
};

export const FIXTURE_FILES = {
  watchPage: "youtube.html.static",
  captcha: "youtube_too_many_requests.html.static",
  consent: "youtube_consent_page.html.static",
  consentInvalid: "youtube_consent_page_invalid.html.static",
  botCheck: "youtube_request_blocked.innertube.json.static",
  transcript: "transcript.xml.static",
} as const;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The default fixtures folder, `../shared/fixtures/youtube` from the repository root. */
export const DEFAULT_FIXTURES_DIR = path.resolve(REPO_ROOT, "../shared/fixtures/youtube");

export function resolveFixturesDir(dir: string | undefined): string {
  return dir === undefined ? DEFAULT_FIXTURES_DIR : path.resolve(REPO_ROOT, dir);
}

export class FixtureFiles {
  readonly #dir: string;
  readonly #cache = new Map<string, string>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  read(name: string): string {
    let text = this.#cache.get(name);
    if (text === undefined) {
      text = readFileSync(path.join(this.#dir, name), "utf8");
      this.#cache.set(name, text);
    }
    return text;
  }

  isFixtureVideo(videoId: string): boolean {
    return Object.hasOwn(FIXTURE_PLAYER_FILES, videoId);
  }

  /** The recorded player response for a fixture id, caption URLs pointing at that id. */
  playerResponse(videoId: string): string | undefined {
    const file = FIXTURE_PLAYER_FILES[videoId];
    if (file === undefined) return undefined;
    return this.read(file).replace(/timedtext\?v=[A-Za-z0-9_-]{11}/g, `timedtext?v=${videoId}`);
  }

  /** A fixture's caption tracks as recorded: language code, name, generated or not. */
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
