/**
 * The `/youtubei/v1/player` answer for a corpus video, shaped like the
 * recorded ANDROID response: one caption track per stored transcript with a
 * signed-looking, expiring baseUrl, and one translation list for the video.
 * The WEB variant (embedded in the watch page) adds `microformat` and marks
 * its caption URLs `&exp=xpe`, as YouTube does.
 */
import { createHash } from "node:crypto";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";

export const TRANSLATION_LANGUAGES: readonly [string, string][] = [
  ["ar", "Arabic"],
  ["zh-Hans", "Chinese (Simplified)"],
  ["nl", "Dutch"],
  ["en", "English"],
  ["fr", "French"],
  ["de", "German"],
  ["hi", "Hindi"],
  ["it", "Italian"],
  ["ja", "Japanese"],
  ["ko", "Korean"],
  ["pt", "Portuguese"],
  ["ru", "Russian"],
  ["es", "Spanish"],
];

export interface PlayerRenderOptions {
  origin: string;
  client: "ANDROID" | "WEB";
  nowMs: number;
}

export function renderPlayer(video: VideoRecord | undefined, videoId: string, options: PlayerRenderOptions): object {
  if (!video) return unavailable();
  const response: Record<string, unknown> = {
    responseContext: { visitorData: "CgtzdGFuZGluLXZpc2l0b3I%3D" },
    playabilityStatus: { status: "OK", playableInEmbed: true, contextParams: "Q0FFU0FnZ0I=" },
    videoDetails: {
      videoId,
      title: video.title,
      lengthSeconds: String(Math.round(video.lengthSeconds)),
      keywords: video.keywords ?? [],
      channelId: video.channelId,
      isOwnerViewing: false,
      shortDescription: video.description ?? "",
      isCrawlable: true,
      thumbnail: { thumbnails: thumbnails(video) },
      allowRatings: true,
      viewCount: String(video.viewCount),
      author: video.channelTitle,
      isPrivate: false,
      isUnpluggedCorpus: false,
      isLiveContent: false,
    },
  };
  if (video.transcripts.length > 0) response.captions = captions(video, options);
  if (options.client === "WEB") response.microformat = microformat(video);
  return response;
}

function unavailable(): object {
  return {
    responseContext: {},
    playabilityStatus: {
      status: "ERROR",
      reason: "This video is unavailable",
      errorScreen: {
        playerErrorMessageRenderer: {
          reason: { runs: [{ text: "This video is unavailable" }] },
          icon: { iconType: "ERROR_OUTLINE" },
        },
      },
      contextParams: "Q0FBU0FnZ0E=",
    },
  };
}

function captions(video: VideoRecord, options: PlayerRenderOptions): object {
  const expire = Math.floor(options.nowMs / 1000) + 6 * 3600;
  const captionTracks = video.transcripts.map((t) => {
    const signature = createHash("sha1").update(`${video.videoId}:${t.languageCode}:${expire}`).digest("hex").toUpperCase();
    const xpe = options.client === "WEB" ? "&exp=xpe" : "";
    const baseUrl =
      `${options.origin}/api/timedtext?v=${video.videoId}&ei=c3RhbmRpbg&caps=asr&opi=112496729${xpe}&xoaf=5&hl=en` +
      `&ip=0.0.0.0&ipbits=0&expire=${expire}&sparams=ip,ipbits,expire,v,ei,caps,opi,xoaf` +
      `&signature=${signature.slice(0, 40)}.${signature.slice(0, 40)}&key=yt8` +
      `${t.isGenerated ? "&kind=asr" : ""}&lang=${encodeURIComponent(t.languageCode)}&fmt=srv3`;
    return {
      baseUrl,
      name: { runs: [{ text: t.language }] },
      vssId: `${t.isGenerated ? "a." : "."}${t.languageCode}`,
      languageCode: t.languageCode,
      ...(t.isGenerated ? { kind: "asr" } : {}),
      isTranslatable: true,
      trackName: "",
    };
  });
  return {
    playerCaptionsTracklistRenderer: {
      captionTracks,
      audioTracks: [{ captionTrackIndices: captionTracks.map((_, i) => i) }],
      translationLanguages: TRANSLATION_LANGUAGES.map(([languageCode, name]) => ({
        languageCode,
        languageName: { runs: [{ text: name }] },
      })),
      defaultAudioTrackIndex: 0,
    },
  };
}

function thumbnails(video: VideoRecord): object[] {
  const base = `https://i.ytimg.com/vi/${video.videoId}`;
  return [
    { url: `${base}/default.jpg`, width: 120, height: 90 },
    { url: `${base}/mqdefault.jpg`, width: 320, height: 180 },
    { url: `${base}/hqdefault.jpg`, width: 480, height: 360 },
    // The stored thumbnail is offered as the largest, so a fetch gives it back unchanged.
    { url: video.thumbnail || `${base}/sddefault.jpg`, width: 640, height: 480 },
  ];
}

function microformat(video: VideoRecord): object {
  const pacific = pacificTime(video.publishedAt);
  return {
    playerMicroformatRenderer: {
      thumbnail: { thumbnails: [{ url: video.thumbnail, width: 640, height: 480 }] },
      title: { simpleText: video.title },
      description: { simpleText: video.description ?? "" },
      lengthSeconds: String(Math.round(video.lengthSeconds)),
      ownerProfileUrl: `http://www.youtube.com/${video.channelHandle ?? `channel/${video.channelId}`}`,
      externalChannelId: video.channelId,
      isFamilySafe: true,
      availableCountries: ["US"],
      isUnlisted: false,
      hasYpcMetadata: false,
      viewCount: String(video.viewCount),
      category: video.category ?? "People & Blogs",
      publishDate: pacific,
      ownerChannelName: video.channelTitle,
      uploadDate: pacific,
    },
  };
}

/** YouTube writes dates in Pacific time; a fixed -07:00 keeps the conversion to UTC honest. */
function pacificTime(iso: string): string {
  const shifted = new Date(Date.parse(iso) - 7 * 3600 * 1000).toISOString().slice(0, 19);
  return `${shifted}-07:00`;
}
