import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Reports once whether the tests over the recorded YouTube responses run (test/helpers/recordings.ts).
    globalSetup: ["test/helpers/recordings-setup.ts"],
    // Tests start real servers and build real SQLite files; two cores, so keep parallelism modest.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
