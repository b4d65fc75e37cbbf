/**
 * A server started by an npm script stops when that script's process is
 * gone. `npm start` runs the server through `sh -c` with `exec`, so npm is
 * its parent and passes SIGTERM and SIGINT on; but an npm killed outright
 * (SIGKILL, the OOM killer) passes nothing, and the server, adopted by init,
 * would keep serving and holding the port with no one to stop it. Node has
 * no parent-death signal, so the parent's pid is looked at every
 * `intervalMs`: it changes once the parent is gone.
 *
 * Started any other way (systemd, a container's command, a shell's `&`), a
 * server outlives its parent as before.
 */

/** npm sets `npm_lifecycle_event` (the script's name) for the processes a script runs. */
export function startedByNpmScript(env: NodeJS.ProcessEnv): boolean {
  return env.npm_lifecycle_event !== undefined;
}

/** Calls `onGone` once, when this process's parent has exited. Returns the stopper. */
export function whenParentGone(onGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  // Never what keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
