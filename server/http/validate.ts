/**
 * Runs a zod schema over request input and turns failures into one 400
 * listing each bad parameter by name. Messages come from the schemas, never
 * from the input, so nothing the client sent is echoed back.
 */
import type { z } from "zod";
import { HttpError, invalidParameters, type ParamError } from "../problem/http-error.js";
import { nameToShow } from "./query.js";

export interface ValidateOptions {
  /** Name used when an issue concerns the whole input (e.g. a body that is not an object). Default "body". */
  rootName?: string;
  /** Code of the error. Default `invalid_parameter`. */
  code?: string;
}

export function validate<S extends z.ZodType>(schema: S, input: unknown, options: ValidateOptions = {}): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  // One message per parameter: the first rule it broke (e.g. "must not be empty", not also "must contain a letter").
  const byParam = new Map<string, ParamError>();
  for (const issue of parsed.error.issues) {
    for (const error of toParamErrors(issue, options.rootName ?? "body")) if (!byParam.has(error.param)) byParam.set(error.param, error);
  }
  const errors = [...byParam.values()];
  const error = invalidParameters(errors);
  if (options.code === undefined) throw error;
  throw new HttpError(400, options.code, error.detail, { errors });
}

function toParamErrors(issue: z.core.$ZodIssue, rootName: string): ParamError[] {
  if (issue.code === "unrecognized_keys") {
    // Each unknown field by its name, as an unknown query parameter is; a name that is not plain is not echoed.
    const parent = paramName(issue.path, rootName);
    return issue.keys.map((key) =>
      nameToShow(key, "") === key
        ? { param: paramName([...issue.path, key], rootName), message: "is not a field of this body" }
        : { param: parent, message: "has an unknown field" },
    );
  }
  return [{ param: paramName(issue.path, rootName), message: issue.message }];
}

/** ["videoIds", 3] → "videoIds[3]"; [] → rootName. */
export function paramName(path: readonly PropertyKey[], rootName: string): string {
  let name = "";
  for (const part of path) {
    if (typeof part === "number") name += `[${part}]`;
    else name += name === "" ? String(part) : `.${String(part)}`;
  }
  return name === "" ? rootName : name;
}
