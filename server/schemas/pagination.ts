import { z } from "zod";
import { apiSchemas } from "./registry.js";

export const PaginationSchema = z
  .object({
    limit: z.int().meta({ description: "Page size applied (after clamping)." }),
    offset: z.int().meta({ description: "Offset applied." }),
    total: z.int().meta({ description: "Total matching items." }),
    hasMore: z.boolean().meta({ description: "Whether items exist beyond this page." }),
  })
  .register(apiSchemas, { id: "Pagination" });
