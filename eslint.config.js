import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["build/", "dist/", "data/", ".react-router/", "node_modules/", "src/server/db/migrations/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "child_process", message: "Use node:child_process, and only in server runtime code." }] },
      ],
    },
  },
  {
    files: ["src/web/**/*.{ts,tsx}", "src/shared/**/*.ts"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // The browser side never starts processes: runner code stays on the server (README, "Project layout").
      "no-restricted-imports": ["error", { patterns: ["node:child_process", "**/features/runtime/**"] }],
    },
  },
);
