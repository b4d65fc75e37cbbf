/**
 * Notices a publish: `fs.watch` on DATA_DIR sees the rename that swaps the
 * `current` symlink (inotify on Linux, so within milliseconds), and a slow
 * poll of the symlink's target catches what a watcher can miss (network file
 * systems, a watcher that errored, platforms without filenames in events).
 * Both only call `onChange`; deciding whether anything changed is the
 * switch's job, so spurious events cost one realpath.
 */
import { watch, type FSWatcher } from "node:fs";
import { DATA_DIR_NAMES } from "../../pipeline/artifact/layout/index.js";
import { errorFields, type Logger } from "../log.js";

export interface CurrentWatcherOptions {
  dataDir: string;
  onChange: (trigger: "watch" | "poll") => void;
  /** Use fs.watch. Default true. */
  watch?: boolean;
  /** Poll interval in ms; 0 disables polling. Default 2000. */
  pollMs?: number;
  /** Events within this many ms are handled once. Default 50. */
  debounceMs?: number;
  log: Logger;
}

export const DEFAULT_POLL_MS = 2000;

export class CurrentWatcher {
  #watcher: FSWatcher | undefined;
  #poll: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;

  constructor(options: CurrentWatcherOptions) {
    const { dataDir, onChange, log } = options;
    const run = (trigger: "watch" | "poll"): void => {
      try {
        onChange(trigger);
      } catch (error) {
        log.error("artifact set check failed", { trigger, ...errorFields(error) });
      }
    };
    if (options.watch ?? true) {
      try {
        this.#watcher = watch(dataDir, { persistent: false }, (_event, filename) => {
          // live.db and keys.db live here too: ignore their writes.
          if (filename !== null && filename !== DATA_DIR_NAMES.current) return;
          clearTimeout(this.#debounce);
          this.#debounce = setTimeout(() => run("watch"), options.debounceMs ?? 50);
          this.#debounce.unref();
        });
        this.#watcher.on("error", (error) => {
          log.warn("watching DATA_DIR failed; relying on polling", errorFields(error));
          this.#watcher?.close();
          this.#watcher = undefined;
        });
      } catch (error) {
        log.warn("cannot watch DATA_DIR; relying on polling", errorFields(error));
      }
    }
    const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    if (pollMs > 0) {
      this.#poll = setInterval(() => run("poll"), pollMs);
      this.#poll.unref();
    }
  }

  close(): void {
    this.#watcher?.close();
    clearInterval(this.#poll);
    clearTimeout(this.#debounce);
  }
}
