/**
 * A video named the way people paste it: the 11-character id, or a YouTube
 * link in any of its forms (watch?v=, youtu.be/, /shorts/, /embed/, /live/,
 * /v/, m., music. and nocookie hosts, with or without a scheme, with extra
 * parameters). Anything else comes back as it was, for the id check to refuse.
 */
import { VIDEO_ID_PATTERN } from "../../pipeline/artifact/contract/index.js";

const HOSTS = new Set(["youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com", "youtube-nocookie.com", "www.youtube-nocookie.com"]);
const PATH_FORMS = new Set(["shorts", "embed", "live", "v", "e"]);

export function videoIdOf(reference: string): string {
  const text = reference.trim();
  if (VIDEO_ID_PATTERN.test(text)) return text;
  const url = parseLink(text);
  if (url === undefined) return reference;
  const host = url.hostname.toLowerCase();
  let candidate: string | undefined;
  if (host === "youtu.be" || host === "www.youtu.be") candidate = url.pathname.split("/")[1];
  else if (HOSTS.has(host)) {
    const [first, second] = url.pathname.split("/").slice(1);
    if (first === "watch") candidate = url.searchParams.get("v") ?? undefined;
    else if (first !== undefined && PATH_FORMS.has(first)) candidate = second;
  }
  return candidate !== undefined && VIDEO_ID_PATTERN.test(candidate) ? candidate : reference;
}

function parseLink(text: string): URL | undefined {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    return url.protocol === "https:" || url.protocol === "http:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The link a person can open. */
export function watchUrl(videoId: string): string {
  return `https://www.youtube.com/watch?v=${videoId}`;
}
