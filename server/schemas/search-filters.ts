/**
 * The search filters: one object, validated here, that the search engine
 * binds to each shard (server/search/filters.ts, one matcher per field) and
 * derives every cache key from. The REST query, the MCP tool's arguments
 * and the OpenAPI parameters are all made from these fields, so a filter
 * added here reaches them by itself.
 */
import { z } from "zod";
import { channelIdSchema, minViewsParam } from "./params.js";

/** The earliest and latest instants a published date is compared in, as stored (`Date.toISOString()`, years 0000-9999). */
const EARLIEST = "0000-01-01T00:00:00.000Z";
const LATEST = "9999-12-31T23:59:59.999Z";

/**
 * A date (YYYY-MM-DD, a whole UTC day) or an RFC 3339 date-time, as the
 * inclusive bound of that `edge` in the form dates are stored in: a day's
 * first millisecond after, its last before. Dates are stored to the
 * millisecond, and a date-time is compared to the millisecond too.
 */
function publishedBound(value: string, edge: "after" | "before"): string {
  if (value.length === 10) return `${value}T${edge === "after" ? "00:00:00.000" : "23:59:59.999"}Z`;
  const ms = Date.parse(value);
  const bound = Number.isNaN(ms) ? "" : new Date(ms).toISOString();
  // Beyond years 0000-9999, toISOString writes a sign and six digits, which would not compare as text.
  if (bound.length !== LATEST.length) return ms < 0 ? EARLIEST : LATEST;
  return bound;
}

const publishedParam = (edge: "after" | "before", description: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: "must be a date (YYYY-MM-DD) or an RFC 3339 date-time such as 2024-05-01T12:00:00Z",
    })
    .transform((value) => publishedBound(value, edge))
    .optional()
    .meta({ description, example: edge === "after" ? "2024-01-01" : "2024-06-30T23:59:59Z" });

export const searchFilterFields = {
  channel: channelIdSchema.optional(),
  minViews: minViewsParam,
  publishedAfter: publishedParam(
    "after",
    "Only videos published at or after this: a date (YYYY-MM-DD, from the start of that day, UTC) or an RFC 3339 date-time (2024-05-01T12:00:00Z, 2024-05-01T14:00:00+02:00). Inclusive. Videos whose date is unknown are left out.",
  ),
  publishedBefore: publishedParam(
    "before",
    "Only videos published at or before this: a date (YYYY-MM-DD, to the end of that day, UTC) or an RFC 3339 date-time. Inclusive. Videos whose date is unknown are left out.",
  ),
};

export const SearchFiltersSchema = z.object(searchFilterFields);

export type SearchFilters = z.output<typeof SearchFiltersSchema>;

/** The filters' names, in a fixed order. */
export const SEARCH_FILTER_NAMES = Object.keys(searchFilterFields).sort() as (keyof SearchFilters)[];

/** An object schema of `fields` and the search filters, with the rules across filters. */
export function withSearchFilters<F extends z.ZodRawShape>(fields: F) {
  return z.object({ ...fields, ...searchFilterFields }).check((ctx) => {
    const { publishedAfter, publishedBefore } = ctx.value as SearchFilters;
    if (publishedAfter !== undefined && publishedBefore !== undefined && publishedAfter > publishedBefore) {
      ctx.issues.push({ code: "custom", message: "must not be later than publishedBefore", path: ["publishedAfter"], input: ctx.value });
    }
  });
}
