/**
 * The entries a browse continuation answer carries: a channel's Videos tab
 * and a playlist page both get their next page as
 * `appendContinuationItemsAction` (or `reloadContinuationItemsCommand` when
 * the list is reloaded) under `onResponseReceivedActions`.
 */
import { asArray, dig } from "./client-context.js";

/** The continuation's entries; empty for a first page, which carries its entries in its tabs. */
export function continuationItems(json: unknown): unknown[] {
  return asArray(dig(json, "onResponseReceivedActions")).flatMap((action) => [
    ...asArray(dig(action, "appendContinuationItemsAction", "continuationItems")),
    ...asArray(dig(action, "reloadContinuationItemsCommand", "continuationItems")),
  ]);
}
