/**
 * Moves the server onto the artifact set `<DATA_DIR>/current` points at, if
 * that changed. The new set is first checked against its manifest's hashes
 * (set-verifier.ts; on a worker thread, while the old set keeps serving),
 * then opened (and the live store reconciled with it) from its resolved path,
 * so a publish racing the open cannot mix files of two builds; then it
 * replaces the old one in the holder within the same synchronous step. A set
 * that fails verification or fails to open is logged and the old one keeps
 * serving; the same target is not retried until it changes or a SIGHUP
 * forces it. Checks run one at a time: a check asked for while one runs
 * waits for it, and further asks meanwhile share that one waiting check.
 *
 * A set whose database turns out damaged while serving (`fallBack`) is left
 * for the newest earlier build that verifies, when there is one.
 */
import { realpathSync } from "node:fs";
import { dataDirLayout } from "../../pipeline/artifact/layout/index.js";
import { forgetVerified } from "../../pipeline/artifact/manifest/index.js";
import type { ArtifactCatalog } from "./artifact-catalog.js";
import type { Catalog } from "../data/catalog.js";
import { errorFields, type Logger } from "../log.js";
import type { ServiceState } from "../service-state.js";
import type { CatalogHolder } from "./catalog-holder.js";
import { previousVerifiedSet, verifySet } from "./set-verifier.js";

export type SwitchTrigger = "startup" | "sighup" | "watch" | "poll";

export type SwitchOutcome = "switched" | "unchanged" | "failed";

export interface ArtifactSwitchOptions {
  dataDir: string;
  holder: CatalogHolder<ArtifactCatalog>;
  /** Opens the set in a resolved build directory (with the live store). */
  open: (dir: string) => ArtifactCatalog;
  /** The resolved directory of the set the holder serves now. */
  servedDir: string;
  /** A resolved directory already refused (at start): not retried until `current` changes or a SIGHUP. */
  failedDir?: string;
  /** Health for /healthz and /readyz; refusals and run-time faults are reported there. */
  state?: ServiceState;
  log: Logger;
  /** Called once the holder serves the new set (the demo key is revoked here when it is not the demo). */
  onSwitched?: (catalog: ArtifactCatalog) => void;
}

interface QueuedCheck {
  force: boolean;
  promise: Promise<SwitchOutcome>;
}

export class ArtifactSwitch {
  readonly #options: ArtifactSwitchOptions;
  #servedDir: string;
  #failedDir: string | undefined;
  /** The end of the chain of checks; each starts when the one before it ended. */
  #tail: Promise<unknown> = Promise.resolve();
  #queued: QueuedCheck | undefined;
  /** The catalog whose database fault is being handled, so a burst of failing requests falls back once. */
  #faulted: Catalog | undefined;
  #closed = false;

  constructor(options: ArtifactSwitchOptions) {
    this.#options = options;
    this.#servedDir = options.servedDir;
    this.#failedDir = options.failedDir;
  }

  get servedDir(): string {
    return this.#servedDir;
  }

  /** Switches if `current` points elsewhere; `force` retries a target that failed before. */
  check(trigger: SwitchTrigger, force = false): Promise<SwitchOutcome> {
    if (this.#queued !== undefined) {
      this.#queued.force ||= force;
      return this.#queued.promise;
    }
    const queued: QueuedCheck = { force, promise: Promise.resolve("unchanged") };
    queued.promise = this.#serialise(() => {
      this.#queued = undefined;
      return this.#check(trigger, queued.force);
    });
    this.#queued = queued;
    return queued.promise;
  }

  /**
   * The served set's database failed a request with `code` (SQLITE_CORRUPT
   * and kin): marks the server unhealthy, drops the set from the record of
   * verified sets, and serves the newest earlier build that verifies instead
   * (degraded, no longer unhealthy). The damaged set is not switched to again
   * until `current` changes or a SIGHUP (which hashes it again).
   */
  fallBack(catalog: Catalog, code: string): Promise<SwitchOutcome> {
    const { dataDir, holder, state, log } = this.#options;
    if (catalog !== holder.current || catalog === this.#faulted) return Promise.resolve("unchanged");
    this.#faulted = catalog;
    const bad = this.#servedDir;
    state?.unhealthy(`the served artifact set ${bad} fails at run time (${code})`);
    log.error("artifact set database fault; looking for an earlier verified set", { dir: bad, code });
    try {
      forgetVerified(dataDir, bad);
    } catch (error) {
      log.warn("cannot update the record of verified sets", errorFields(error));
    }
    return this.#serialise(async () => {
      if (holder.current !== catalog) return "unchanged";
      const previous = await previousVerifiedSet(dataDir, bad, new Set(), log);
      if (previous === undefined) {
        log.error("no earlier artifact set verifies; still serving the damaged one", { dir: bad, code });
        return "failed";
      }
      if (holder.current !== catalog) return "unchanged";
      try {
        this.#swap(previous, "fault");
      } catch (error) {
        log.error("earlier artifact set failed to open; still serving the damaged one", { dir: previous, ...errorFields(error) });
        return "failed";
      }
      this.#failedDir = bad;
      state?.degraded(`serving the earlier set ${previous}: ${bad} failed at run time (${code})`);
      return "switched";
    });
  }

  /** Checks still waiting or hashing when the server stops end without switching. */
  close(): void {
    this.#closed = true;
  }

  #serialise(task: () => Promise<SwitchOutcome>): Promise<SwitchOutcome> {
    const run = this.#tail.then(task);
    this.#tail = run.catch(() => {});
    return run;
  }

  async #check(trigger: SwitchTrigger, force: boolean): Promise<SwitchOutcome> {
    const { dataDir, state, log } = this.#options;
    let target: string;
    try {
      target = realpathSync(dataDirLayout(dataDir).current);
    } catch (error) {
      // Mid-publish `current` always exists (rename over it), so this is an operator's doing.
      log.warn("cannot resolve the current artifact set; still serving the old one", { trigger, ...errorFields(error) });
      return "failed";
    }
    if (target === this.#servedDir) return "unchanged";
    if (target === this.#failedDir && !force) return "unchanged";
    try {
      await verifySet(dataDir, target, log);
      this.#swap(target, trigger);
    } catch (error) {
      this.#failedDir = target;
      const reason = error instanceof Error ? error.message : String(error);
      log.error("new artifact set refused; still serving the old one", { trigger, target, served: this.#servedDir, reason });
      if (state?.condition.status !== "unhealthy") state?.degraded(`the published set ${target} was refused (${reason}); serving ${this.#servedDir}`);
      return "failed";
    }
    this.#failedDir = undefined;
    state?.ok();
    return "switched";
  }

  /** Opens the set in `dir` and serves it from now on; throws (serving the old one) when it cannot be opened. */
  #swap(dir: string, trigger: SwitchTrigger | "fault"): void {
    const { holder, open, log } = this.#options;
    if (this.#closed) throw new Error("the server is stopping");
    const next = open(dir);
    const previous = this.#servedDir;
    holder.swap(next);
    this.#servedDir = dir;
    this.#options.onSwitched?.(next);
    log.info("artifact set switched", {
      trigger,
      from: previous,
      to: dir,
      dataset: next.manifest.dataset,
      builtAt: next.manifest.builtAt,
      videos: next.manifest.counts.videos,
    });
  }
}
