/** The usage lines of `npm run pipeline -- export`, for its own errors and the pipeline's usage text. */
export const EXPORT_USAGE = `usage: npm run pipeline -- export --format parquet|jsonl --out DIR [--set BUILD_ID] [--shard-rows N]
       npm run pipeline -- export --verify DIR`;
