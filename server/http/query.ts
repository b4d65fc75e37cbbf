/**
 * Turns a query string into the plain object the route's zod schema checks.
 * A parameter given twice is rejected rather than silently picking one: the
 * client's intent is unknown. Parameters the route does not define are ignored
 * (cache-busters and tracing parameters are common).
 */
import { invalidParameters, type ParamError } from "./http-error.js";

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
