// The e2e tests drive Debian's Chromium (no browser download is possible here).
// Installs it when missing and we are root; otherwise says how and fails.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
if (existsSync(CHROMIUM)) process.exit(0);

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  console.error(
    `Chromium is not installed (${CHROMIUM}). Install it with:\n  sudo apt-get update && sudo apt-get install -y chromium\n` +
      `or set CHROMIUM_PATH to a Chromium or Chrome binary.`,
  );
  process.exit(1);
}
console.log("Installing Debian's chromium package for the e2e tests...");
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
for (const args of [
  ["update", "-qq"],
  ["install", "-y", "-qq", "--no-install-recommends", "chromium"],
]) {
  const r = spawnSync("apt-get", args, { stdio: "inherit", env });
  if (r.status !== 0) {
    console.error(`apt-get ${args.join(" ")} failed; install chromium by hand (apt-get install -y chromium).`);
    process.exit(1);
  }
}
if (!existsSync(CHROMIUM)) {
  console.error(`chromium was installed but ${CHROMIUM} is missing; set CHROMIUM_PATH.`);
  process.exit(1);
}
