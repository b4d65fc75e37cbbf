/**
 * The answers YouTube gives an address it has blocked, as the stand-in's
 * limits (limits.ts) serve them: a 429 with Retry-After, the redirect to
 * Google's "unusual traffic" page, the bot check in the player answer, the
 * captcha page, a consent wall that comes back whatever the cookie says, and
 * a caption answer of 200 with an empty body.
 */
import type { FixtureFiles } from "./fixtures.js";
import type { BlockRecord } from "./limits.js";
import type { Reply } from "./routes.js";

const HTML = "text/html; charset=utf-8";

export function blockReply(block: BlockRecord, files: FixtureFiles, url: URL): Reply {
  switch (block.answer) {
    case "rate-limit":
      return {
        status: 429,
        contentType: HTML,
        body: "<html><head><title>Sorry...</title></head><body>We're sorry... but your computer or network may be sending automated queries.</body></html>",
        headers: { "retry-after": String(block.retryAfterSeconds ?? 1) },
      };
    case "unusual-traffic": {
      // YouTube sends the browser to Google's /sorry/ page; the client does not follow redirects, so the 302 is what it sees.
      const sorry = `https://www.google.com/sorry/index?continue=${encodeURIComponent(`https://www.youtube.com${url.pathname}${url.search}`)}`;
      return {
        status: 302,
        contentType: HTML,
        body: `<HTML><HEAD><meta http-equiv="content-type" content="text/html;charset=utf-8">\n<TITLE>302 Moved</TITLE></HEAD><BODY>\n<H1>302 Moved</H1>\nThe document has moved\n<A HREF="${sorry}">here</A>.\n</BODY></HTML>`,
        headers: { location: sorry },
      };
    }
    case "bot-check":
      return { status: 200, contentType: "application/json; charset=UTF-8", body: files.faultPage("botCheck") };
    case "captcha":
      return { status: 200, contentType: HTML, body: files.faultPage("captcha") };
    case "consent":
      return { status: 200, contentType: HTML, body: files.faultPage("consent") };
    case "empty-caption":
      return { status: 200, contentType: "text/xml; charset=UTF-8", body: "" };
  }
}
