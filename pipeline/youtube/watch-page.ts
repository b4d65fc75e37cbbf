/**
 * Step 1 of a transcript fetch: the WEB watch page, for the InnerTube API key
 * and the page-only metadata (publish date, category, chapters). Handles the
 * EU consent wall by answering it with the CONSENT cookie, as browsers do.
 */
import type { ClientContext } from "./client-context.js";
import { CAPTCHA_MARK, CONSENT_FORM } from "./block-wording.js";
import { YouTubeError } from "./errors.js";
import { decodeHtmlEntities } from "./html-entities.js";

export interface WatchPage {
  apiKey: string;
  html: string;
  /** Cookie header the page was finally fetched with (the consent answer), if any. */
  cookie?: string;
  usedProxy: boolean;
}

const API_KEY = /"INNERTUBE_API_KEY":\s*"([a-zA-Z0-9_-]+)"/;
const CONSENT_VALUE = /name="v" value="(.*?)"/;

export async function fetchWatchPage(ctx: ClientContext, videoId: string, signal?: AbortSignal): Promise<WatchPage> {
  const url = `${ctx.origin}/watch?v=${encodeURIComponent(videoId)}`;
  const get = async (cookie?: string) =>
    ctx.transport.send({
      method: "GET",
      url,
      headers: { "accept-language": "en-US", ...(cookie ? { cookie } : {}) },
      ...(signal ? { signal } : {}),
    });

  let response = await get();
  let cookie: string | undefined;
  if (response.body.includes(CONSENT_FORM)) {
    const value = CONSENT_VALUE.exec(response.body)?.[1];
    if (!value) {
      throw new YouTubeError("consent_failed", "The consent cookie could not be set: the consent page has no value", {
        usedProxy: response.usedProxy,
      });
    }
    cookie = `CONSENT=YES+${decodeHtmlEntities(value)}`;
    response = await get(cookie);
    if (response.body.includes(CONSENT_FORM)) {
      throw new YouTubeError("consent_failed", "The consent cookie could not be set: YouTube asked again", {
        usedProxy: response.usedProxy,
      });
    }
  }

  const { body, usedProxy } = response;
  const apiKey = API_KEY.exec(body)?.[1];
  if (apiKey === undefined) {
    if (body.includes(CAPTCHA_MARK)) {
      throw new YouTubeError("ip_blocked", "YouTube answered with a captcha page: this IP is blocked", { usedProxy });
    }
    if (response.status >= 400) {
      throw new YouTubeError("upstream_status", `The watch page answered HTTP ${response.status}`, {
        status: response.status,
        usedProxy,
      });
    }
    throw new YouTubeError("upstream_unparsable", "The watch page has no INNERTUBE_API_KEY", { usedProxy });
  }
  return { apiKey, html: body, usedProxy, ...(cookie ? { cookie } : {}) };
}
