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

if (!fresh) {
  console.log("Building Switchboard (first start or sources changed)...");
  const npmCli = process.env.npm_execpath;
  const r = npmCli
    ? spawnSync(process.execPath, [npmCli, "run", "build"], { cwd: root, stdio: "inherit" })
    : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stamp, current);
}

await import(pathToFileURL(path.join(root, "dist/server.js")).href);
