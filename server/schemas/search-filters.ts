/**
 * The search filters: one object, validated here, that the search engine
 * binds to each shard (server/search/filters.ts, one matcher per field) and
 * derives every cache key from. The REST query, the MCP tool's arguments
 * and the OpenAPI parameters are all made from these fields, so a filter
 * added here reaches them by itself.
 */
import { z } from "zod";
import { channelIdSchema, minViewsParam } from "./params.js";

export const searchFilterFields = {
  channel: channelIdSchema.optional(),
  minViews: minViewsParam,
};

export const SearchFiltersSchema = z.object(searchFilterFields);

export type SearchFilters = z.output<typeof SearchFiltersSchema>;

/** The filters' names, in a fixed order. */
export const SEARCH_FILTER_NAMES = Object.keys(searchFilterFields).sort() as (keyof SearchFilters)[];

/** An object schema of `fields` and the search filters. */
export function withSearchFilters<F extends z.ZodRawShape>(fields: F) {
  return z.object({ ...fields, ...searchFilterFields });
}
