import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import path from "node:path";
import { defineConfig } from "vite";

/** tsconfig.json's paths: ~/ is src/, ~support/ is tests/support/ (esbuild and tsx read them from tsconfig.json) */
export const aliases = [
  { find: /^~\//, replacement: `${path.resolve(import.meta.dirname, "src")}/` },
  { find: /^~support\//, replacement: `${path.resolve(import.meta.dirname, "tests/support")}/` },
];

/**
 * React Router's package exports only its development build (extra checks and warnings: ~10% of a
 * server page's CPU in a profile), so a production build points the bare imports at the production
 * build it also ships: "react-router" and "react-router/dom" both, as they share its chunks (one of
 * them alone would give the browser two copies, and hydration would fail: each has its own router
 * context). The server takes createRequestHandler from entry.server, so there is one copy there too.
 */
const productionReactRouter = [
  { find: /^react-router$/, replacement: path.resolve(import.meta.dirname, "node_modules/react-router/dist/production/index.mjs") },
  {
    find: /^react-router\/dom$/,
    replacement: path.resolve(import.meta.dirname, "node_modules/react-router/dist/production/dom-export.mjs"),
  },
];

export default defineConfig(({ mode }) => ({
  plugins: [tailwindcss(), reactRouter()],
  resolve: { alias: mode === "production" ? [...aliases, ...productionReactRouter] : aliases },
  server: { hmr: true },
  build: { sourcemap: false },
}));
