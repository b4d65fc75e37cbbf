import { z } from "zod";
import { MAX_OFFSET, MAX_PAGE_SIZE } from "./params.js";
import { apiSchemas } from "./registry.js";

export const PaginationSchema = z
  .object({
    limit: z.int().min(1).max(MAX_PAGE_SIZE).meta({ description: "Page size applied (after clamping)." }),
    offset: z.int().min(0).max(MAX_OFFSET).meta({ description: "Offset applied." }),
    total: z.int().min(0).meta({ description: "Total matching items." }),
    hasMore: z.boolean().meta({ description: "Whether items exist beyond this page." }),
  })
  .register(apiSchemas, { id: "Pagination" });
