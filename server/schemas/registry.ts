/**
 * Schemas registered here become `components.schemas` of the OpenAPI
 * document, under their id; the same objects validate requests at runtime.
 */
import { z } from "zod";

export interface ApiSchemaMeta {
  id: string;
  description?: string;
}

export const apiSchemas = z.registry<ApiSchemaMeta>();
