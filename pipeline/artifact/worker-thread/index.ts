/**
 * Worker threads whose code is a TypeScript module of this project
 * (ts-worker.ts), the face the build, the record writer, the hashing and the
 * server's text prefetch start them by.
 */
export { tsWorker } from "./ts-worker.js";
