/**
 * Turns a query string into the plain object the route's zod schema checks.
 * A parameter given twice is rejected rather than silently picking one: the
 * client's intent is unknown. A parameter the route does not define is
 * rejected too (`assertKnownQuery`), as an unknown body field is: a typo
 * (`limt=5`) or a parameter of another endpoint would otherwise be ignored
 * without a word, and the client would trust an answer to a question it did
 * not ask.
 */
import { invalidParameters, type ParamError } from "../problem/http-error.js";
import { redactKeys } from "./log-path.js";

export function queryObject(query: URLSearchParams, known: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const errors: ParamError[] = [];
  for (const name of known) {
    const values = query.getAll(name);
    if (values.length > 1) errors.push({ param: name, message: "must be given at most once" });
    else if (values[0] !== undefined) out[name] = values[0];
  }
  if (errors.length > 0) throw invalidParameters(errors);
  return out;
}

export const UNKNOWN_PARAMETER_MESSAGE = "is not a parameter of this endpoint";

/** 400 `invalid_parameter` naming each query parameter that is not in `known`. */
export function assertKnownQuery(query: URLSearchParams, known: readonly string[]): void {
  if (query.size === 0) return;
  const errors: ParamError[] = [];
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (known.includes(name) || seen.has(name)) continue;
    seen.add(name);
    errors.push({ param: nameToShow(name, "query"), message: UNKNOWN_PARAMETER_MESSAGE });
  }
  if (errors.length > 0) throw invalidParameters(errors);
}

/** Names a parameter may have and still be echoed in a problem: no markup, no spaces, nothing long, no API key. */
const SHOWABLE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The name of an unknown parameter or field as the problem shows it: the
 * client needs it to find its mistake, so a plain name is shown as it is;
 * anything else is client input that could carry markup or a secret, and
 * is shown as `fallback`.
 */
export function nameToShow(name: string, fallback: string): string {
  return SHOWABLE_NAME.test(name) && redactKeys(name) === name ? name : fallback;
}
