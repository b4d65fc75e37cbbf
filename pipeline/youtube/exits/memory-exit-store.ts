/** Exit state held in this process's memory: what one pipeline run or one server process sees alone. */
import type { ExitPolicy } from "./exit-policy.js";
import { claimOn, settleOn } from "./exit-rules.js";
import { emptyRecord, type ClaimResult, type ExitOutcome, type ExitRecord, type ExitStateStore } from "./exit-state-store.js";

export class MemoryExitStore implements ExitStateStore {
  readonly #records = new Map<string, ExitRecord>();

  #record(key: string): ExitRecord {
    let record = this.#records.get(key);
    if (!record) {
      record = emptyRecord();
      this.#records.set(key, record);
    }
    return record;
  }

  async claim(key: string, now: number, policy: ExitPolicy): Promise<ClaimResult> {
    const record = this.#record(key);
    return { ...claimOn(record, now, policy), record: { ...record } };
  }

  async settle(key: string, sentAt: number, now: number, outcome: ExitOutcome, policy: ExitPolicy, random: number): Promise<ExitRecord> {
    const record = this.#record(key);
    settleOn(record, sentAt, now, outcome, policy, random);
    return { ...record };
  }

  async read(key: string): Promise<ExitRecord> {
    return { ...this.#record(key) };
  }
}
