/**
 * A channel's whole Videos tab, page by page through continuation tokens.
 * Iterating sends requests lazily, so a caller that stops early (or hits a
 * video it already has) costs no further calls.
 */
import type { ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";
import { readBrowsePage, type ChannelMetadata, type ChannelVideo } from "./browse-page.js";
import { postWeb } from "./innertube-web.js";

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
    const seenTokens = new Set<string>();
    let payload: Record<string, unknown> = { browseId: this.#channelId, params: VIDEOS_TAB_PARAMS };
    for (;;) {
      const { json, usedProxy } = await postWeb(this.#ctx, "browse", payload, this.#signal);
      this.#pages++;
      this.#usedProxy ||= usedProxy;
      const page = readBrowsePage(json);
      if (this.#pages === 1) {
        if (!page.metadata && page.items.length === 0) {
          throw new YouTubeError("upstream_unparsable", "The channel's Videos tab has neither metadata nor items", { usedProxy });
        }
        this.#metadata = page.metadata;
      }
      yield* page.items;
      // A repeated token would loop forever; YouTube has been seen to send one at the end.
      if (!page.continuation || seenTokens.has(page.continuation)) return;
      seenTokens.add(page.continuation);
      payload = { continuation: page.continuation };
    }
  }
}
