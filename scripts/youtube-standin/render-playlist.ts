/**
 * `browse` of a playlist (browse id `VL` + its id), in the shape YouTube
 * serves it: `playlistVideoRenderer` items under the selected tab's
 * `sectionListRenderer` → `itemSectionRenderer` → `playlistVideoListRenderer`,
 * 100 a page, each naming its uploader in `shortBylineText`, views and age
 * in `videoInfo` runs; later pages in `appendContinuationItemsAction`. The
 * first page's continuation is a plain `continuationCommand`, later ones sit
 * inside a `commandExecutorCommand`, so a client has to read both. An id the
 * corpus does not know is listed as YouTube lists a private video (no
 * uploader, not playable); an unknown playlist gets YouTube's error alert.
 */
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { videoWithoutText, type StandinCorpus } from "./corpus.js";
import { lengthText, relativeAge, shortViewCount } from "./render-browse.js";

export interface StandinPlaylist {
  playlistId: string;
  title: string;
  /** In playlist order; ids the corpus does not know are served as private videos. */
  videoIds: string[];
}

export const PLAYLIST_PAGE_SIZE = 100;

const TOKEN_PREFIX = "4qmFsgKP";

export function encodePlaylistContinuation(cursor: { playlistId: string; offset: number }): string {
  return `${TOKEN_PREFIX}${Buffer.from(JSON.stringify(cursor)).toString("base64url")}`;
}

export function decodePlaylistContinuation(token: string): { playlistId: string; offset: number } | undefined {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  try {
    const cursor = JSON.parse(Buffer.from(token.slice(TOKEN_PREFIX.length), "base64url").toString("utf8")) as { playlistId?: unknown; offset?: unknown };
    if (typeof cursor.playlistId !== "string" || typeof cursor.offset !== "number") return undefined;
    return { playlistId: cursor.playlistId, offset: cursor.offset };
  } catch {
    return undefined;
  }
}

/** What YouTube answers (HTTP 200) for a playlist id it does not have. */
export function missingPlaylist(): object {
  return {
    responseContext: {},
    alerts: [{ alertRenderer: { type: "ERROR", text: { runs: [{ text: "The playlist does not exist." }] } } }],
  };
}

export function playlistPage(corpus: StandinCorpus, playlist: StandinPlaylist, offset: number, nowMs: number): object {
  const items: object[] = playlist.videoIds
    .slice(offset, offset + PLAYLIST_PAGE_SIZE)
    .map((videoId, i) => playlistItem(videoWithoutText(corpus, videoId), videoId, playlist.playlistId, offset + i + 1, nowMs));
  const next = offset + PLAYLIST_PAGE_SIZE;
  if (next < playlist.videoIds.length) {
    const command = { continuationCommand: { token: encodePlaylistContinuation({ playlistId: playlist.playlistId, offset: next }), request: "CONTINUATION_REQUEST_TYPE_BROWSE" } };
    items.push({
      continuationItemRenderer: {
        trigger: "CONTINUATION_TRIGGER_ON_ITEM_SHOWN",
        continuationEndpoint: offset === 0 ? command : { commandExecutorCommand: { commands: [{ playlistVotingRefreshPopupCommand: { command: {} } }, command] } },
      },
    });
  }
  if (offset > 0) {
    return { responseContext: {}, onResponseReceivedActions: [{ appendContinuationItemsAction: { continuationItems: items, targetId: `VL${playlist.playlistId}` } }] };
  }
  const count = playlist.videoIds.length;
  return {
    responseContext: {},
    contents: {
      twoColumnBrowseResultsRenderer: {
        tabs: [
          {
            tabRenderer: {
              selected: true,
              content: {
                sectionListRenderer: {
                  contents: [
                    { itemSectionRenderer: { contents: [{ playlistVideoListRenderer: { contents: items, playlistId: playlist.playlistId, isEditable: false, canReorder: false, targetId: `VL${playlist.playlistId}` } }] } },
                  ],
                },
              },
            },
          },
        ],
      },
    },
    header: { pageHeaderRenderer: { pageTitle: playlist.title } },
    metadata: {
      playlistMetadataRenderer: {
        title: playlist.title,
        androidAppindexingLink: `android-app://com.google.android.youtube/http/www.youtube.com/playlist?list=${playlist.playlistId}`,
      },
    },
    sidebar: {
      playlistSidebarRenderer: {
        items: [
          {
            playlistSidebarPrimaryInfoRenderer: {
              title: { runs: [{ text: playlist.title }] },
              stats: [{ runs: [{ text: String(count) }, { text: count === 1 ? " video" : " videos" }] }, { simpleText: "No views" }],
            },
          },
        ],
      },
    },
  };
}

function playlistItem(video: VideoRecord | undefined, videoId: string, playlistId: string, index: number, nowMs: number): object {
  const watch = { watchEndpoint: { videoId, playlistId, index: index - 1 } };
  if (video === undefined) {
    return {
      playlistVideoRenderer: { videoId, title: { runs: [{ text: "[Private video]" }] }, index: { simpleText: String(index) }, navigationEndpoint: watch, isPlayable: false },
    };
  }
  const length = lengthText(video.lengthSeconds);
  return {
    playlistVideoRenderer: {
      videoId,
      thumbnail: { thumbnails: [{ url: video.thumbnail, width: 480, height: 270 }] },
      title: { runs: [{ text: video.title }], accessibility: { accessibilityData: { label: `${video.title} ${length}` } } },
      index: { simpleText: String(index) },
      shortBylineText: {
        runs: [
          {
            text: video.channelTitle,
            navigationEndpoint: {
              browseEndpoint: { browseId: video.channelId, ...(video.channelHandle ? { canonicalBaseUrl: `/${video.channelHandle}` } : {}) },
            },
          },
        ],
      },
      lengthText: { simpleText: length },
      navigationEndpoint: watch,
      lengthSeconds: String(Math.round(video.lengthSeconds)),
      isPlayable: true,
      videoInfo: { runs: [{ text: shortViewCount(video.viewCount) }, { text: " • " }, { text: relativeAge(video.publishedAt, nowMs) }] },
    },
  };
}
