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

/** `auto`, or a whole number from `min` to `max`. */
export const countOrAuto = (min: number, max: number): Kind<number | "auto"> =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => v === "auto" || (/^\d+$/.test(v) && Number(v) >= min && Number(v) <= max), `must be auto or a whole number from ${min} to ${max}`)
    .transform((v) => (v === "auto" ? ("auto" as const) : Number(v)));

/** Empty (unset), or a URL with one of `schemes` (without the colon); empty gives undefined. */
export const optionalUrl = (schemes: readonly string[], message: string): Kind<string | undefined> =>
  z
    .string()
    .trim()
    .refine((v) => {
      if (v === "") return true;
      try {
        return schemes.includes(new URL(v).protocol.replace(/:$/, ""));
      } catch {
        return false;
      }
    }, message)
    .transform((v) => (v === "" ? undefined : v));

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

/**
 * Which of `values` are on: `all`, `none`, a list of those on (`a,b`) or a
 * list of those off (`-a,-b`), case-insensitive; the result in `values` order.
 */
export const switches = <const V extends readonly [string, ...string[]]>(values: V): Kind<V[number][]> =>
  z
    .string()
    .trim()
    .toLowerCase()
    .transform((spec, context) => {
      if (spec === "all") return [...values];
      if (spec === "none") return [];
      const items = spec.split(",").map((item) => item.trim()).filter((item) => item !== "");
      const off = items.filter((item) => item.startsWith("-"));
      const names = items.map((item) => item.replace(/^-/, ""));
      const unknown = names.filter((name) => !(values as readonly string[]).includes(name));
      if (items.length === 0 || (off.length > 0 && off.length < items.length) || unknown.length > 0) {
        const what = unknown.length > 0 ? `unknown: ${unknown.join(", ")}; ` : "";
        context.addIssue({ code: "custom", message: `${what}must be all, none, a list of names or a list of -names, out of: ${values.join(", ")}` });
        return z.NEVER;
      }
      const named = new Set(names);
      return values.filter((value) => (off.length > 0 ? !named.has(value) : named.has(value)));
    });

/** Comma-separated http(s) URLs; an empty list is allowed. */
export const httpUrls = (message: string): Kind<string[]> => commaList().refine((urls) => urls.every(isHttpUrl), message);

/** An http(s) scheme and host (a trailing slash is allowed), normalised to `URL.origin`. */
export const httpOrigin = (message: string): Kind<string> =>
  z
    .string()
    .trim()
    .refine(isOrigin, message)
    .transform((v) => new URL(v).origin);

/**
 * Comma-separated exact origins (scheme, host and port, as browsers send them
 * in `Origin`), each normalised to `URL.origin`, or `*` alone for any origin;
 * empty: none.
 */
export const originList = (message: string): Kind<string[]> =>
  commaList()
    .refine((items) => (items.length === 1 && items[0] === "*") || items.every(isOrigin), message)
    .transform((items) => (items[0] === "*" ? ["*"] : [...new Set(items.map((v) => new URL(v).origin))]));

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
