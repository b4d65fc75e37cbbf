/**
 * A playlist's videos, page by page: `browse` with browse id `VL` + the
 * playlist id, then its continuation tokens, lazily (browse-pages.ts) like a
 * channel's Videos tab. A playlist names no channel of its own: each
 * video carries its uploader's channel id.
 */
import { browsePages } from "./browse-pages.js";
import type { ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { readPlaylistPage, type PlaylistVideo } from "./playlist-page.js";

/** A playlist id as written alone: a user playlist (PL), a channel's uploads (UU), favourites (FL) or an album (OLAK5uy_). */
export const PLAYLIST_ID_PATTERN = /^(PL|UU|FL|OLAK5uy_)[A-Za-z0-9_-]{10,64}$/;

/** The playlist a channel-list line names: a bare id, or a YouTube URL with `list=` (`/playlist?list=…`, `/watch?v=…&list=…`); undefined otherwise. */
export function playlistIdOf(input: string): string | undefined {
  const trimmed = input.trim();
  if (PLAYLIST_ID_PATTERN.test(trimmed)) return trimmed;
  let url: URL;
  try {
    url = new URL(trimmed.startsWith("/") ? `https://www.youtube.com${trimmed}` : trimmed.replace(/^(?!https?:)/, "https://"));
  } catch {
    return undefined;
  }
  if (!/(^|\.)youtube\.com$/.test(url.hostname)) return undefined;
  const list = url.searchParams.get("list") ?? "";
  return PLAYLIST_ID_PATTERN.test(list) ? list : undefined;
}

export class PlaylistVideoStream implements AsyncIterable<PlaylistVideo> {
  readonly #ctx: ClientContext;
  readonly #playlistId: string;
  readonly #signal: AbortSignal | undefined;
  #title: string | undefined;
  #pages = 0;
  #unavailable = 0;

  constructor(ctx: ClientContext, playlistId: string, options: { signal?: AbortSignal } = {}) {
    this.#ctx = ctx;
    this.#playlistId = playlistId;
    this.#signal = options.signal;
  }

  /** The playlist's title; known once the first page has arrived. */
  get title(): string | undefined {
    return this.#title;
  }

  get pages(): number {
    return this.#pages;
  }

  /** Entries skipped because they cannot be fetched (private or deleted videos). */
  get unavailable(): number {
    return this.#unavailable;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<PlaylistVideo> {
    const first = { browseId: `VL${this.#playlistId}` };
    for await (const { page, usedProxy } of browsePages({ ctx: this.#ctx, first, read: readPlaylistPage, signal: this.#signal })) {
      this.#pages++;
      if (this.#pages === 1) {
        if (page.alert !== undefined) throw new YouTubeError("channel_not_found", `YouTube does not list the playlist: ${page.alert}`, { usedProxy });
        if (page.title === undefined && page.items.length === 0 && page.unavailable === 0) {
          throw new YouTubeError("upstream_unparsable", "The playlist page has neither a title nor items", { usedProxy });
        }
        this.#title = page.title;
      }
      this.#unavailable += page.unavailable;
      yield* page.items;
    }
  }
}
