/** The WebAssembly kernels, each assembled from its text into a module carrying its bytes (scripts/wasm.ts). */
import wabt from "wabt";

export interface Kernel {
  /** The text, from the repository's root. */
  wat: string;
  /** The TypeScript module written from it. */
  module: string;
}

export const KERNELS: readonly Kernel[] = [{ wat: "pipeline/vectors/wasm/hamming.wat", module: "pipeline/vectors/wasm/hamming-wasm.ts" }];

export async function assembleKernel(text: string, name: string): Promise<Uint8Array> {
  const parsed = (await wabt()).parseWat(name, text);
  try {
    parsed.validate();
    return parsed.toBinary({ canonicalize_lebs: true }).buffer;
  } finally {
    parsed.destroy();
  }
}

/** The module's text: the bytes in base64, and where they come from. */
export function kernelModule(kernel: Kernel, bytes: Uint8Array): string {
  return `// Assembled from ${kernel.wat.split("/").pop()} by \`npm run wasm\`; do not edit.\nexport const WASM_BASE64 = "${Buffer.from(bytes).toString("base64")}";\n`;
}
