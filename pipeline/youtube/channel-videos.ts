/**
 * A channel's whole Videos tab, page by page through continuation tokens.
 * Iterating sends requests lazily, so a caller that stops early (or hits a
 * video it already has) costs no further calls.
 */
import { browsePages } from "./browse-pages.js";
import type { ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { readBrowsePage, type ChannelMetadata, type ChannelVideo } from "./browse-page.js";

/** `params` of the Videos tab, as the WEB client sends it. */
export const VIDEOS_TAB_PARAMS = "EgZ2aWRlb3PyBgQKAjoA";

export interface ListChannelVideosOptions {
  signal?: AbortSignal;
}

export class ChannelVideoStream implements AsyncIterable<ChannelVideo> {
  readonly #ctx: ClientContext;
  readonly #channelId: string;
  readonly #signal: AbortSignal | undefined;
  #metadata: ChannelMetadata | undefined;
  #pages = 0;
  #usedProxy = false;

  constructor(ctx: ClientContext, channelId: string, options: ListChannelVideosOptions = {}) {
    this.#ctx = ctx;
    this.#channelId = channelId;
    this.#signal = options.signal;
  }

  /** The channel's title, id and vanity URL; known once the first page has arrived. */
  get metadata(): ChannelMetadata | undefined {
    return this.#metadata;
  }

  /** Browse pages fetched so far. */
  get pages(): number {
    return this.#pages;
  }

  get usedProxy(): boolean {
    return this.#usedProxy;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ChannelVideo> {
    const first = { browseId: this.#channelId, params: VIDEOS_TAB_PARAMS };
    for await (const { page, usedProxy } of browsePages({ ctx: this.#ctx, first, read: readBrowsePage, signal: this.#signal })) {
      this.#pages++;
      this.#usedProxy ||= usedProxy;
      if (this.#pages === 1) {
        if (!page.metadata && page.items.length === 0) {
          throw new YouTubeError("upstream_unparsable", "The channel's Videos tab has neither metadata nor items", { usedProxy });
        }
        this.#metadata = page.metadata;
      }
      yield* page.items;
    }
  }
}
