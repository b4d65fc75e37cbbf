/**
 * The machine line of a bench section names the kernel's proactive reclaim
 * (DAMON pageout schemes), read from a directory laid out as sysfs lays out
 * /sys/kernel/mm/damon/admin: a set read into the page cache is read from
 * disk again on such a machine once idle, so figures of a first pass differ
 * from a machine without it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { damonPageouts } from "../../scripts/bench/machine.js";
import { markdownSection } from "../../scripts/bench/report.js";
import type { BenchResults } from "../../scripts/bench/run.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A DAMON admin directory: files given by their path under it. */
function sysfs(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "damon-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `${text}\n`);
  }
  return root;
}

const context = "kdamonds/0/contexts/0";
const scheme = `${context}/schemes/0`;
/** A kdamond paging out unmapped pages (anon rejected) idle for 12 aggregation intervals of 5 s. */
const reclaiming = {
  "kdamonds/nr_kdamonds": "1",
  "kdamonds/0/state": "on",
  [`${context}/monitoring_attrs/intervals/aggr_us`]: "5000000",
  [`${context}/monitoring_attrs/intervals/sample_us`]: "500000",
  [`${scheme}/action`]: "pageout",
  [`${scheme}/access_pattern/age/min`]: "12",
  [`${scheme}/ops_filters/nr_filters`]: "2",
  [`${scheme}/ops_filters/0/type`]: "anon",
  [`${scheme}/ops_filters/0/matching`]: "Y",
  [`${scheme}/ops_filters/0/allow`]: "N",
  [`${scheme}/ops_filters/1/type`]: "unmapped",
  [`${scheme}/ops_filters/1/matching`]: "Y",
  [`${scheme}/ops_filters/1/allow`]: "Y",
};

describe("damonPageouts", () => {
  it("describes a running pageout scheme: the pages its filters let through and the idle time in seconds", () => {
    expect(damonPageouts(sysfs(reclaiming))).toEqual(["pageout of unmapped pages (not anon) idle ≥ 60 s"]);
  });

  it("reads filters of kernels without `allow` (each one rejects what it matches) and schemes without filters", () => {
    const older = sysfs({
      ...Object.fromEntries(Object.entries(reclaiming).filter(([path]) => !path.includes("ops_filters"))),
      [`${scheme}/filters/0/type`]: "anon",
      [`${scheme}/filters/0/matching`]: "Y",
      [`${context}/schemes/1/action`]: "pageout",
      [`${context}/schemes/1/access_pattern/age/min`]: "2",
    });
    expect(damonPageouts(older)).toEqual(["pageout of pages (not anon) idle ≥ 60 s", "pageout of pages idle ≥ 10 s"]);
  });

  it("is empty where DAMON is off, schemes do something else, or there is no DAMON at all", () => {
    expect(damonPageouts(sysfs({ ...reclaiming, "kdamonds/0/state": "off" }))).toEqual([]);
    expect(damonPageouts(sysfs({ ...reclaiming, [`${scheme}/action`]: "stat" }))).toEqual([]);
    expect(damonPageouts(join(tmpdir(), "no-such-damon-dir"))).toEqual([]);
  });

  it("leaves out a kdamond whose files do not read as expected", () => {
    const broken = { ...reclaiming } as Record<string, string>;
    delete broken[`${context}/monitoring_attrs/intervals/aggr_us`];
    expect(damonPageouts(sysfs(broken))).toEqual([]);
  });
});

describe("the section's machine line", () => {
  const base: BenchResults = { size: 2000, seed: 1, command: "test", machine: { cpu: "X", cores: 2, ramGiB: 8, node: "v20", commit: "abc" }, startedAt: "2026-01-01T00:00:00Z", load: { server: 1.5 } };

  it("names the reclaim where the machine has it, and says nothing of it where it has not", () => {
    const reclaim = ["pageout of unmapped pages (not anon) idle ≥ 60 s"];
    const line = (r: BenchResults) => markdownSection(r, []).split("\n").find((l) => l.startsWith("- machine:"));
    expect(line({ ...base, machine: { ...base.machine, reclaim } })).toBe(
      "- machine: X, 2 cores, 8 GiB RAM, Node v20; 1-min load average at each phase start: server 1.5; the kernel takes idle pages back with RAM free (DAMON): pageout of unmapped pages (not anon) idle ≥ 60 s",
    );
    expect(line(base)).toBe("- machine: X, 2 cores, 8 GiB RAM, Node v20; 1-min load average at each phase start: server 1.5");
  });
});
