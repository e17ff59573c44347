import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import path from "node:path";
import { defineConfig } from "vite";

/** tsconfig.json's paths: ~/ is src/, ~support/ is tests/support/ (esbuild and tsx read them from tsconfig.json) */
export const aliases = [
  { find: /^~\//, replacement: `${path.resolve(import.meta.dirname, "src")}/` },
  { find: /^~support\//, replacement: `${path.resolve(import.meta.dirname, "tests/support")}/` },
];

export default defineConfig({
  plugins: [tailwindcss(), reactRouter()],
  resolve: { alias: aliases },
  server: { hmr: true },
  build: { sourcemap: false },
});
