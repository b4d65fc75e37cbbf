/** The real server (`server/main.ts`) as a child process for the soak: its URL, its RSS, a clean stop. */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";

export interface ServerChild {
  process: ChildProcess;
  origin: string;
  rssBytes(): number;
  /** Anonymous resident memory (heap, buffers): what a leak grows. File pages (the memory-mapped database) are cache the kernel can reclaim. */
  anonRssBytes(): number;
  /** SIGTERM, then the exit code (null if killed by a signal). */
  stop(): Promise<number | null>;
}

export async function startServerChild(options: { repoRoot: string; env: Record<string, string>; logFile: string }): Promise<ServerChild> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: options.repoRoot,
    env: { ...process.env, ...options.env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = createWriteStream(options.logFile);
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const origin = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(seen);
      if (match?.[1]) {
        child.stdout!.off("data", onData);
        resolve(match[1]);
      }
    };
    child.stdout!.on("data", onData);
    void exited.then((code) => reject(new Error(`the server exited with ${code} before listening; see ${options.logFile}`)));
  });
  const pid = child.pid as number;
  return {
    process: child,
    origin,
    rssBytes: () => statusField(pid, "VmRSS"),
    anonRssBytes: () => statusField(pid, "RssAnon"),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

function statusField(pid: number, name: string): number {
  try {
    return Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0; // the process has exited
  }
}
