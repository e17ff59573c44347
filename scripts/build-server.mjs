// Bundles the server into dist/server.js: plain node starts it in well under a second.
import { build } from "esbuild";

await build({
  entryPoints: ["src/server/entry.ts"],
  outfile: "dist/server.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
