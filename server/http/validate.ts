/**
 * Runs a zod schema over request input and turns failures into one 400
 * listing each bad parameter by name. Messages come from the schemas, never
 * from the input, so nothing the client sent is echoed back.
 */
import type { z } from "zod";
import { HttpError, invalidParameters, type ParamError } from "./http-error.js";

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
    const error = toParamError(issue, options.rootName ?? "body");
    if (!byParam.has(error.param)) byParam.set(error.param, error);
  }
  const errors = [...byParam.values()];
  const error = invalidParameters(errors);
  if (options.code === undefined) throw error;
  throw new HttpError(400, options.code, error.detail, { errors });
}

function toParamError(issue: z.core.$ZodIssue, rootName: string): ParamError {
  const param = paramName(issue.path, rootName);
  if (issue.code === "unrecognized_keys") {
    // The unknown names are client input: say that they exist, not what they are.
    return { param, message: `has ${issue.keys.length === 1 ? "an unknown field" : `${issue.keys.length} unknown fields`}` };
  }
  return { param, message: issue.message };
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
