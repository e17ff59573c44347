// `npm start`: builds when the sources changed since the last build, then runs the built app in
// this same process (no wrapper process to orphan, Ctrl-C reaches the app directly).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const inputs = ["src", "package-lock.json", "vite.config.ts", "react-router.config.ts", "scripts/build-server.mjs", "public"];

function fingerprint() {
  const h = createHash("sha256");
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) walk(path.join(p, name));
    } else {
      h.update(`${path.relative(root, p)}:${st.size}:${st.mtimeMs}\n`);
    }
  };
  for (const i of inputs) walk(path.join(root, i));
  return h.digest("hex");
}

const stamp = path.join(root, "build/.fingerprint");
const current = fingerprint();
const fresh =
  existsSync(path.join(root, "dist/server.js")) &&
  existsSync(path.join(root, "build/server/index.js")) &&
  existsSync(stamp) &&
  readFileSync(stamp, "utf8") === current;

/**
 * One step of the build (what `npm run build` runs), said in a line with its time. Its own output
 * (the bundlers' lists of chunks) is shown only when it fails; `npm run build` shows all of it.
 */
function step(what, args) {
  const started = performance.now();
  process.stdout.write(`  ${what}... `);
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    process.stdout.write("failed:\n");
    process.stdout.write(r.stdout ?? "");
    process.stderr.write(r.stderr ?? "");
    process.exit(r.status ?? 1);
  }
  console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (!fresh) {
  const started = performance.now();
  console.log("Building Switchboard (its first start, or the sources changed since the last build):");
  step("the pages (React Router and Vite)", [path.join(root, "node_modules/@react-router/dev/bin.js"), "build"]);
  step("the server (esbuild)", [path.join(root, "scripts/build-server.mjs")]);
  writeFileSync(stamp, current);
  console.log(`Built in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}
console.log("Starting Switchboard: the database (the embedded PostgreSQL unless DATABASE_URL is set), its migrations, then the app...");

await import(pathToFileURL(path.join(root, "dist/server.js")).href);
