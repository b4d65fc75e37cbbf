/**
 * The pages of a paged `browse` list (a channel's Videos tab, a playlist),
 * lazily: the next page is asked for only when the caller comes back for it,
 * so a caller that stops early costs no further calls.
 */
import type { ClientContext } from "./client-context.js";
import { postWeb } from "./innertube-web.js";

export interface BrowsePagesOptions<P> {
  ctx: ClientContext;
  /** The first page's `browse` payload; later pages send only their continuation token. */
  first: Record<string, unknown>;
  /** Reads a page's answer, its continuation token included. */
  read: (json: unknown) => P;
  signal: AbortSignal | undefined;
}

export async function* browsePages<P extends { continuation?: string }>(options: BrowsePagesOptions<P>): AsyncGenerator<{ page: P; usedProxy: boolean }> {
  const seenTokens = new Set<string>();
  let payload = options.first;
  for (;;) {
    const { json, usedProxy } = await postWeb(options.ctx, "browse", payload, options.signal);
    const page = options.read(json);
    yield { page, usedProxy };
    // A repeated token would loop forever; YouTube has been seen to send one at the end.
    if (!page.continuation || seenTokens.has(page.continuation)) return;
    seenTokens.add(page.continuation);
    payload = { continuation: page.continuation };
  }
}
