/**
 * Request parameter schemas shared by several routes. Query values arrive as
 * strings; numeric ones are converted only when they look exactly like a
 * number, so "", "NaN", "1e3" and "0x10" are rejected rather than coerced.
 */
import { z } from "zod";
import { CHANNEL_ID_PATTERN, TRACK_KINDS, VIDEO_ID_PATTERN } from "../../pipeline/artifact/contract/index.js";

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
/** Deeper pages cost the search engine too much; clients should narrow the query instead. */
export const MAX_OFFSET = 10_000;
export const MAX_QUERY_LENGTH = 500;

const NUMERIC = /^-?\d+(\.\d+)?$/;
const numberFromQuery = (value: unknown): unknown => (typeof value === "string" && NUMERIC.test(value) ? Number(value) : value);

const wholeNumber = () =>
  z.number({ error: "must be a whole number" }).int({ error: "must be a whole number" });

export const limitParam = z
  .preprocess(numberFromQuery, wholeNumber().min(1, "must be at least 1").default(DEFAULT_PAGE_SIZE))
  .transform((limit) => Math.min(limit, MAX_PAGE_SIZE))
  .meta({ description: `Page size, default ${DEFAULT_PAGE_SIZE}. Values above ${MAX_PAGE_SIZE} are clamped to ${MAX_PAGE_SIZE}; pagination.limit reports the size applied.` });

export const offsetParam = z
  .preprocess(
    numberFromQuery,
    wholeNumber().min(0, "must be at least 0").max(MAX_OFFSET, `must be at most ${MAX_OFFSET} (deep-pagination cap)`).default(0),
  )
  .meta({ description: `Items to skip, default 0, at most ${MAX_OFFSET} (deep-pagination cap: narrow the query instead).` });

export const minViewsParam = z
  .preprocess(numberFromQuery, wholeNumber().min(0, "must be at least 0").optional())
  .meta({ description: "Only videos with at least this many views." });

export const channelIdSchema = z
  .string()
  .regex(CHANNEL_ID_PATTERN, "must be a channel id: UC followed by 22 characters of A-Z, a-z, 0-9, _ or -")
  .meta({ description: "Channel id: UC followed by 22 characters.", example: "UCsXVk37bltHxD1rDPwtNM8Q" });

export const videoIdSchema = z
  .string()
  .regex(VIDEO_ID_PATTERN, "must be a video id: 11 characters of A-Z, a-z, 0-9, _ or -")
  .meta({ description: "Video id: 11 characters of A-Z, a-z, 0-9, _ or -.", example: "dQw4w9WgXcQ" });

export const langParam = z
  .string()
  .max(35, "must be at most 35 characters")
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "must be a language code such as en, de or pt-BR")
  .default("en")
  .meta({ description: "Transcript language code (exact match: en does not match en-GB). Default en.", example: "en" });

export const trackParam = z
  .enum(TRACK_KINDS, { error: `must be one of ${TRACK_KINDS.join(", ")}` })
  .default("any")
  .meta({
    description:
      "Which track of the language: any (default; the manual one when there is one, else the auto-generated one), " +
      "manual, or generated (auto-generated). A kind the video lacks in the language is 404 track_not_available.",
  });

export const queryTextParam = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(MAX_QUERY_LENGTH, `must be at most ${MAX_QUERY_LENGTH} characters`)
  .refine((q) => /[\p{L}\p{N}]/u.test(q), "must contain at least one letter or digit")
  .meta({ description: `Search query, 1..${MAX_QUERY_LENGTH} characters after trimming, with at least one letter or digit.` });

export const booleanFlagParam = z
  .enum(["true", "false"], { error: "must be true or false" })
  .optional()
  .transform((v) => v === "true");
