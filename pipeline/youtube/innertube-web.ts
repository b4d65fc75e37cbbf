/**
 * POSTs to the WEB InnerTube endpoints (resolve_url, browse), with the
 * status handling they share: 400/404 mean the channel or page does not exist.
 */
import { WEB_CLIENT, parseJsonBody, type ClientContext } from "./client-context.js";
import { YouTubeError } from "./errors.js";

export interface WebCallResult {
  json: unknown;
  usedProxy: boolean;
}

export async function postWeb(
  ctx: ClientContext,
  endpoint: "navigation/resolve_url" | "browse",
  payload: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<WebCallResult> {
  return ctx.retryBlocked(async () => {
    const response = await ctx.transport.send({
      method: "POST",
      url: `${ctx.origin}/youtubei/v1/${endpoint}?prettyPrint=false`,
      headers: { "content-type": "application/json", "accept-language": "en-US" },
      body: JSON.stringify({ context: { client: WEB_CLIENT }, ...payload }),
      ...(signal ? { signal } : {}),
    });
    const { usedProxy, status } = response;
    if (status === 400 || status === 404) {
      throw new YouTubeError("channel_not_found", "YouTube does not know this channel", { status, usedProxy });
    }
    if (status >= 400) {
      throw new YouTubeError("upstream_status", `The ${endpoint} endpoint answered HTTP ${status}`, { status, usedProxy });
    }
    return { json: parseJsonBody(response.body, `The ${endpoint} response`, usedProxy), usedProxy };
  }, signal);
}
