import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("./offline-embed.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Whether this machine lets a process start in a network namespace of its own (root, or unprivileged user namespaces). */
function canUnshareNetwork(): boolean {
  return spawnSync("unshare", ["--net", "--map-root-user", "true"]).status === 0 || spawnSync("unshare", ["--net", "true"]).status === 0;
}

function netless(): string[] {
  return spawnSync("unshare", ["--net", "true"]).status === 0 ? ["--net"] : ["--net", "--map-root-user"];
}

describe("the built-in embedder", () => {
  it("loads and embeds in a process with no network at all, putting a paraphrase nearer than an unrelated sentence", { timeout: 120_000 }, (context) => {
    // Skipped, with one line saying so, only where no process can be started without a network (CI runs as root, where it can).
    if (!canUnshareNetwork()) {
      console.log("skipped: the built-in embedder offline (this machine cannot start a process in a network namespace of its own)");
      context.skip();
    }
    const out = execFileSync("unshare", [...netless(), process.execPath, "--import", "tsx", SCRIPT], { cwd: ROOT, encoding: "utf8", timeout: 110_000 });
    const result = JSON.parse(out.trim().split("\n").at(-1)!) as { dimensions: number; paraphrase: number; other: number };
    expect(result.dimensions).toBe(512);
    expect(result.paraphrase).toBeGreaterThan(result.other + 0.2);
  });
});
