/**
 * Assembles the WebAssembly kernels from their text (`.wat`) into the
 * TypeScript modules that carry their bytes, so that nothing is compiled at
 * install or at run time. `npm run wasm` after editing a `.wat`; a test checks
 * that the committed bytes are the assembly of the committed text.
 *
 *   npm run wasm            write the modules
 *   npm run wasm -- --check exit 1 if a module is not the assembly of its text
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./bench/paths.js";
import { assembleKernel, KERNELS, kernelModule } from "./wasm-kernels.js";

const check = process.argv.includes("--check");
let stale = 0;
for (const kernel of KERNELS) {
  const text = readFileSync(join(REPO_ROOT, kernel.wat), "utf8");
  const module = kernelModule(kernel, await assembleKernel(text, kernel.wat));
  const path = join(REPO_ROOT, kernel.module);
  const current = readFileSync(path, { encoding: "utf8", flag: "a+" });
  if (current === module) continue;
  if (check) {
    process.stderr.write(`${kernel.module} is not the assembly of ${kernel.wat}: run npm run wasm\n`);
    stale++;
  } else {
    writeFileSync(path, module);
    process.stdout.write(`wrote ${kernel.module}\n`);
  }
}
process.exit(stale > 0 ? 1 : 0);
