/**
 * Reads one page of a playlist, as `browse` with browse id `VL` + the
 * playlist id answers it: `playlistVideoRenderer` items (first page under
 * the selected tab's `playlistVideoListRenderer`, later pages in
 * `appendContinuationItemsAction`), the continuation token (directly in a
 * `continuationCommand`, or inside a `commandExecutorCommand`), the
 * playlist's title, and the alert YouTube sends instead for a playlist that
 * does not exist or is private.
 */
import { CHANNEL_ID_PATTERN } from "../artifact/contract/index.js";
import { asArray, asString, dig, textOf } from "./client-context.js";
import { continuationItems } from "./continuation-items.js";
import { isViewCountText, parseViewCount } from "./view-count.js";

export interface PlaylistVideo {
  videoId: string;
  title: string;
  /** The channel that uploaded it: a playlist mixes channels. */
  channelId: string;
  channelTitle?: string;
  viewCount: number | undefined;
  /** Relative age as shown, e.g. "3 weeks ago". */
  publishedText: string | undefined;
  lengthText?: string;
}

export interface PlaylistPage {
  items: PlaylistVideo[];
  /** Entries without an uploader (private or deleted videos), which cannot be fetched. */
  unavailable: number;
  continuation?: string;
  title?: string;
  /** YouTube's error alert in place of the playlist ("The playlist does not exist."). */
  alert?: string;
}

export function readPlaylistPage(json: unknown): PlaylistPage {
  const page: PlaylistPage = { items: [], unavailable: 0 };
  const title = asString(dig(json, "metadata", "playlistMetadataRenderer", "title"));
  if (title !== undefined) page.title = title;
  const alert = asArray(dig(json, "alerts"))
    .map((entry) => dig(entry, "alertRenderer") ?? dig(entry, "alertWithButtonRenderer"))
    .find((renderer) => asString(dig(renderer, "type")) === "ERROR");
  if (alert !== undefined) page.alert = textOf(dig(alert, "text")) ?? "YouTube did not list the playlist";

  for (const entry of pageEntries(json)) {
    const token = continuationToken(dig(entry, "continuationItemRenderer", "continuationEndpoint"));
    if (token) {
      page.continuation = token;
      continue;
    }
    const renderer = dig(entry, "playlistVideoRenderer");
    const videoId = asString(dig(renderer, "videoId"));
    if (!videoId) continue;
    const byline = asArray(dig(renderer, "shortBylineText", "runs"))[0];
    const channelId = asString(dig(byline, "navigationEndpoint", "browseEndpoint", "browseId"));
    if (channelId === undefined || !CHANNEL_ID_PATTERN.test(channelId) || dig(renderer, "isPlayable") === false) {
      page.unavailable++;
      continue;
    }
    const info = asArray(dig(renderer, "videoInfo", "runs")).map((run) => asString(dig(run, "text")) ?? "");
    const lengthText = textOf(dig(renderer, "lengthText"));
    const channelTitle = asString(dig(byline, "text"));
    page.items.push({
      videoId,
      title: textOf(dig(renderer, "title")) ?? "",
      channelId,
      ...(channelTitle ? { channelTitle } : {}),
      viewCount: parseViewCount(info.find(isViewCountText)),
      publishedText: info.find((text) => /\bago$|^Streamed|^Premiered/i.test(text)),
      ...(lengthText ? { lengthText } : {}),
    });
  }
  return page;
}

function pageEntries(json: unknown): unknown[] {
  const appended = continuationItems(json);
  if (appended.length > 0) return appended;
  const tabs = asArray(dig(json, "contents", "twoColumnBrowseResultsRenderer", "tabs"));
  const tab = tabs.find((t) => dig(t, "tabRenderer", "selected") === true) ?? tabs[0];
  return asArray(dig(tab, "tabRenderer", "content", "sectionListRenderer", "contents"))
    .flatMap((section) => asArray(dig(section, "itemSectionRenderer", "contents")))
    .flatMap((item) => asArray(dig(item, "playlistVideoListRenderer", "contents")));
}

function continuationToken(endpoint: unknown): string | undefined {
  const direct = asString(dig(endpoint, "continuationCommand", "token"));
  if (direct) return direct;
  for (const command of asArray(dig(endpoint, "commandExecutorCommand", "commands"))) {
    const token = asString(dig(command, "continuationCommand", "token"));
    if (token) return token;
  }
  return undefined;
}
