/**
 * The shape of one setting's row and the value kinds rows are written with.
 * A kind parses the environment's string (never absent: an unset variable
 * takes the row's default) and says what is wrong without naming the variable
 * or repeating the value; the loader adds the name.
 */
import path from "node:path";
import { z } from "zod";

/** The commands that read settings: `npm start`, `npm run pipeline`, `npm run keys`, `npm run mcp`. */
export const COMMANDS = ["server", "pipeline", "keys", "mcp"] as const;
export type Command = (typeof COMMANDS)[number];

/** A zod schema from the environment's string to the setting's value. */
export type Kind<T = unknown> = z.ZodType<T, string>;

export interface Setting<K extends Kind = Kind, C extends Command = Command> {
  /** Environment variable name. */
  name: string;
  kind: K;
  /** Default as written in the environment ("" when there is none); it must parse. */
  default: string;
  help: string;
  /** The commands that read and validate it. */
  readBy: readonly C[];
}

/** Keeps a row's kind and commands as literal types, so the typed settings can be inferred from the rows. */
export function setting<K extends Kind, C extends Command>(row: Setting<K, C>): Setting<K, C> {
  return row;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export const wholeNumber = (min: number, max: number): Kind<number> =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

export const onOff = (): Kind<boolean> =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ["on", "off", "true", "false", "1", "0"].includes(v), "must be on or off")
    .transform((v) => v === "on" || v === "true" || v === "1");

/** One of `values`, case-insensitive. */
export const oneOf = <const V extends readonly [string, ...string[]]>(values: V): Kind<V[number]> =>
  z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(values, { error: `must be one of: ${values.join(", ")}` }));

/** Comma-separated items out of `values`, each once, in first-seen order. */
export const listOf = <const V extends readonly [string, ...string[]]>(values: V, message: string): Kind<V[number][]> =>
  commaList()
    .pipe(z.array(z.enum(values, { error: message })))
    .transform((items) => [...new Set(items)]);

/** Comma-separated http(s) URLs; an empty list is allowed. */
export const httpUrls = (message: string): Kind<string[]> => commaList().refine((urls) => urls.every(isHttpUrl), message);

/** An http(s) scheme and host (a trailing slash is allowed), normalised to `URL.origin`. */
export const httpOrigin = (message: string): Kind<string> =>
  z
    .string()
    .trim()
    .refine(isOrigin, message)
    .transform((v) => new URL(v).origin);

/** One http(s) URL (a path is allowed, for a service behind a prefix), without its trailing slash. */
export const httpUrl = (message: string): Kind<string> =>
  z
    .string()
    .trim()
    .refine((v) => isHttpUrl(v) && !/[?#]/.test(v), message)
    .transform((v) => v.replace(/\/+$/, ""));

/** Any text, possibly empty (a secret the command asks for when it needs it). */
export const optionalText = (): Kind<string> => z.string().trim();

export const nonEmpty = (): Kind<string> => z.string().trim().min(1, "must not be empty");

/** A directory, made absolute against the working directory. */
export const directory = (): Kind<string> => nonEmpty().transform((v) => path.resolve(v));

const commaList = () => z.string().transform((v) => v.split(",").map((item) => item.trim()).filter((item) => item.length > 0));

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function isOrigin(value: string): boolean {
  return isHttpUrl(value) && new URL(value).pathname === "/" && !/[?#]/.test(value);
}
