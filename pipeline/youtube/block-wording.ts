/** How YouTube words the answers it gives an address it refuses, shared by the steps and the exits' block detection. */

/** The bot check's playability reason; YouTube has written it with both a curly and a straight apostrophe. */
export const BOT_CHECK = /^Sign in to confirm you[’']re not a bot/;

/** The captcha page's widget. */
export const CAPTCHA_MARK = 'class="g-recaptcha"';

/** The EU consent wall's form. */
export const CONSENT_FORM = 'action="https://consent.youtube.com/s"';

/** Google's "unusual traffic" page, also reached by a redirect to /sorry/. */
export const UNUSUAL_TRAFFIC = /Our systems have detected unusual traffic|sending automated queries/;
