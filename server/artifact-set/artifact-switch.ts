/**
 * Moves the server onto the artifact set `<DATA_DIR>/current` points at, if
 * that changed. The new set is opened (and the live store reconciled with it)
 * from its resolved path, so a publish racing the open cannot mix files of
 * two builds; then it replaces the old one in the holder within the same
 * synchronous step. A set that fails to open is logged and the old one keeps
 * serving; the same target is not retried until it changes or a SIGHUP forces it.
 */
import { realpathSync } from "node:fs";
import { currentArtifactsDir } from "../../pipeline/publish.js";
import type { ArtifactCatalog } from "../data/artifact-catalog.js";
import { errorFields, type Logger } from "../log.js";
import type { CatalogHolder } from "./catalog-holder.js";

export type SwitchTrigger = "startup" | "sighup" | "watch" | "poll";

export type SwitchOutcome = "switched" | "unchanged" | "failed";

export interface ArtifactSwitchOptions {
  dataDir: string;
  holder: CatalogHolder<ArtifactCatalog>;
  /** Opens the set in a resolved build directory (with the live store). */
  open: (dir: string) => ArtifactCatalog;
  /** The resolved directory of the set the holder serves now. */
  servedDir: string;
  log: Logger;
  /** Called once the holder serves the new set (the demo key is revoked here when it is not the demo). */
  onSwitched?: (catalog: ArtifactCatalog) => void;
}

export class ArtifactSwitch {
  readonly #options: ArtifactSwitchOptions;
  #servedDir: string;
  #failedDir: string | undefined;

  constructor(options: ArtifactSwitchOptions) {
    this.#options = options;
    this.#servedDir = options.servedDir;
  }

  get servedDir(): string {
    return this.#servedDir;
  }

  /** Switches if `current` points elsewhere; `force` retries a target that failed before. */
  check(trigger: SwitchTrigger, force = false): SwitchOutcome {
    const { dataDir, holder, open, log } = this.#options;
    let target: string;
    try {
      target = realpathSync(currentArtifactsDir(dataDir));
    } catch (error) {
      // Mid-publish `current` always exists (rename over it), so this is an operator's doing.
      log.warn("cannot resolve the current artifact set; still serving the old one", { trigger, ...errorFields(error) });
      return "failed";
    }
    if (target === this.#servedDir) return "unchanged";
    if (target === this.#failedDir && !force) return "unchanged";
    let next: ArtifactCatalog;
    try {
      next = open(target);
    } catch (error) {
      this.#failedDir = target;
      log.error("new artifact set refused; still serving the old one", {
        trigger,
        target,
        served: this.#servedDir,
        reason: error instanceof Error ? error.message : String(error),
      });
      return "failed";
    }
    const previous = this.#servedDir;
    holder.swap(next);
    this.#servedDir = target;
    this.#failedDir = undefined;
    this.#options.onSwitched?.(next);
    log.info("artifact set switched", {
      trigger,
      from: previous,
      to: target,
      dataset: next.manifest.dataset,
      builtAt: next.manifest.builtAt,
      videos: next.manifest.counts.videos,
    });
    return "switched";
  }
}
