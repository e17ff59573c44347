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

/**
 * The browser's chunks: every icon on its own chunk made a page name ~20 tiny modules in its
 * modulepreload links, which React Router also works out for each server-rendered page. The icons
 * (a few hundred bytes each, 27 kB together) go in one chunk instead, with the module that draws
 * them (src/web/components/icons.ts).
 */
function clientChunk(id: string): string | undefined {
  if (id.includes("/node_modules/lucide-react/") || id.endsWith("/src/web/components/icons.ts")) return "icons";
  return undefined;
}

export default defineConfig(({ mode, isSsrBuild }) => ({
  plugins: [tailwindcss(), reactRouter()],
  resolve: { alias: mode === "production" ? [...aliases, ...productionReactRouter] : aliases },
  server: { hmr: true },
  build: { sourcemap: false, rollupOptions: isSsrBuild ? undefined : { output: { manualChunks: clientChunk } } },
}));
