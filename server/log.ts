/**
 * Structured logging: one JSON object a line on stdout. Keys never appear in
 * log lines; requests are identified by `requestId` and callers by `keyId`.
 */
import type { LogLevel } from "./config.js";

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface LoggerOptions {
  /** Least severe level written. Default `info`. */
  level?: LogLevel;
  /** Where lines go. Default: process.stdout. */
  write?: (line: string) => void;
  /** Clock for the `time` field. Default Date.now. */
  now?: () => number;
  /** Fields added to every line, after the line's own (a worker's number). */
  fields?: LogFields;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = RANK[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const now = options.now ?? Date.now;
  const emit = (level: Exclude<LogLevel, "silent">, msg: string, fields: LogFields = {}): void => {
    if (RANK[level] < threshold) return;
    write(`${JSON.stringify({ time: new Date(now()).toISOString(), level, msg, ...fields, ...options.fields })}\n`);
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
  };
}

/** Serialises an error for a log line, stack included (logs only, never responses). */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause : undefined;
    return {
      error: { name: error.name, message: error.message, stack: error.stack },
      ...(cause ? { cause: { name: cause.name, message: cause.message, stack: cause.stack } } : {}),
    };
  }
  return { error: { message: String(error) } };
}
