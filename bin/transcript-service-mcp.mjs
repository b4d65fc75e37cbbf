#!/usr/bin/env node
// `transcript-service-mcp --stdio`: cli/mcp.ts, run from its TypeScript source through tsx as npm run mcp runs it.
import { register } from "tsx/esm/api";

register();
await import("../cli/mcp.ts");
