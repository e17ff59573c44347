import { defineConfig } from "vitest/config";
import { aliases } from "./vite.config.js";

// The path aliases of tsconfig.json (~/ is src/, ~support/ is tests/support/), for every project.
const resolve = { alias: aliases };

export default defineConfig({
  test: {
    projects: [
      {
        resolve,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
          environment: "node",
        },
      },
      {
        resolve,
        test: {
          name: "integration",
          include: ["src/**/*.int.test.ts", "tests/integration/**/*.test.ts"],
          exclude: ["tests/integration/alone/**", "node_modules/**"],
          globalSetup: ["tests/support/db-global-setup.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Tests that measure a neighbour's latency: run after the others, one file at a time, so
        // what they measure is the attack they make and not the rest of the suite.
        resolve,
        test: {
          name: "integration-alone",
          include: ["tests/integration/alone/**/*.test.ts"],
          globalSetup: ["tests/support/db-global-setup.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        resolve,
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          globalSetup: ["tests/e2e/global-setup.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
