/**
 * The WEB watch page of a corpus video and a channel's `/@handle` page:
 * just the parts fetchers read (the ytcfg API key, `ytInitialPlayerResponse`,
 * `ytInitialData` with the chapters, the canonical link), in the script
 * layout of the real page.
 */
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import type { StandinChannel } from "./corpus.js";
import { renderPlayer } from "./render-player.js";

/** The key of the recorded watch page; any key is accepted by the stand-in's player endpoint. */
export const STANDIN_API_KEY = "AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8";

/** JSON safe to inline in a <script>: YouTube escapes `<`, `>` and `&` the same way. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

export function renderWatchPage(video: VideoRecord | undefined, videoId: string, origin: string, nowMs: number): string {
  const player = renderPlayer(video, videoId, { origin, client: "WEB", nowMs });
  const initialData = video?.chapters?.length ? chaptersData(video) : { contents: {} };
  const title = video ? `${escapeHtml(video.title)} - YouTube` : "YouTube";
  return `<!DOCTYPE html><html style="font-size: 10px;font-family: Roboto, Arial, sans-serif;" lang="en" system-icons typography><head>
<meta http-equiv="origin-trial" content=""><title>${title}</title>
<link rel="canonical" href="https://www.youtube.com/watch?v=${videoId}">
<script nonce="c3RhbmRpbg">ytcfg.set({"CLIENT_CANARY_STATE":"none","INNERTUBE_API_KEY":"${STANDIN_API_KEY}","INNERTUBE_API_VERSION":"v1","INNERTUBE_CLIENT_NAME":"WEB","INNERTUBE_CLIENT_VERSION":"2.20260114.01.00","INNERTUBE_CONTEXT_GL":"US","INNERTUBE_CONTEXT_HL":"en"});</script>
</head><body>
<script nonce="c3RhbmRpbg">var ytInitialPlayerResponse = ${inlineJson(player)};var meta = document.createElement('meta'); meta.name = 'referrer'; meta.content = 'origin-when-cross-origin'; document.getElementsByTagName('head')[0].appendChild(meta);</script>
<div id="player"></div>
<script nonce="c3RhbmRpbg">var ytInitialData = ${inlineJson(initialData)};</script>
</body></html>`;
}

function chaptersData(video: VideoRecord): object {
  const chapters = (video.chapters ?? []).map((chapter) => ({
    chapterRenderer: {
      title: { simpleText: chapter.title },
      timeRangeStartMillis: Math.round(chapter.startSeconds * 1000),
      onActiveCommand: { clickTrackingParams: "CAAQ", setActivePanelItemAction: { panelTargetId: "engagement-panel-macro-markers-description-chapters" } },
    },
  }));
  return {
    playerOverlays: {
      playerOverlayRenderer: {
        decoratedPlayerBarRenderer: {
          decoratedPlayerBarRenderer: {
            playerBar: {
              multiMarkersPlayerBarRenderer: {
                visibleOnLoad: { key: "DESCRIPTION_CHAPTERS" },
                markersMap: [{ key: "DESCRIPTION_CHAPTERS", value: { chapters } }],
              },
            },
          },
        },
      },
    },
  };
}

export function renderChannelPage(channel: StandinChannel): string {
  return `<!DOCTYPE html><html lang="en"><head><title>${escapeHtml(channel.title)} - YouTube</title>
<link rel="canonical" href="https://www.youtube.com/channel/${channel.channelId}">
<meta property="og:url" content="https://www.youtube.com/channel/${channel.channelId}">
<meta itemprop="identifier" content="${channel.channelId}">
</head><body><script nonce="c3RhbmRpbg">var ytInitialData = ${inlineJson({
    metadata: { channelMetadataRenderer: channelMetadata(channel) },
  })};</script></body></html>`;
}

export function channelMetadata(channel: StandinChannel): object {
  return {
    title: channel.title,
    description: "",
    rssUrl: `https://www.youtube.com/feeds/videos.xml?channel_id=${channel.channelId}`,
    externalId: channel.channelId,
    keywords: "",
    ownerUrls: [`http://www.youtube.com/${channel.handle}`],
    channelUrl: `https://www.youtube.com/channel/${channel.channelId}`,
    isFamilySafe: true,
    vanityChannelUrl: `http://www.youtube.com/${channel.handle}`,
  };
}
