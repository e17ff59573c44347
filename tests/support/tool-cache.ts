// Test tools that must not be project dependencies (a Node 22 binary, the MCP conformance suite,
// the MCP Inspector) are installed on first use into a cache directory outside the project.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** Runs a program, collecting stdout and stderr together; killed after `timeoutMs`. */
export function run(
  cmd: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]\n`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * `find(dir)` when `dir` already holds the packages, else installs them (`npm install
 * --ignore-scripts`, with `process.env` so proxies and NODE_EXTRA_CA_CERTS apply) into a private
 * staging directory renamed into place: the rename is atomic, so a concurrent installer (another
 * test worker) either wins or finds a complete installation.
 */
export async function installCached<T>(dir: string, dependencies: Record<string, string>, find: (dir: string) => T | null): Promise<T> {
  const existing = find(dir);
  if (existing) return existing;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const staging = `${dir}.staging-${process.pid}-${randomBytes(4).toString("hex")}`;
  fs.mkdirSync(staging, { recursive: true });
  try {
    fs.writeFileSync(
      path.join(staging, "package.json"),
      JSON.stringify({ name: path.basename(dir), private: true, dependencies }, null, 2),
    );
    const args = ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"];
    const { code, output } = await run(process.platform === "win32" ? "npm.cmd" : "npm", args, staging, INSTALL_TIMEOUT_MS);
    if (code !== 0) throw new Error(`npm ${args.join(" ")} failed (exit ${code}) in ${staging}:\n${output}`);
    if (!find(staging)) throw new Error(`npm install succeeded but the tools are not in ${staging}:\n${output}`);
    if (fs.existsSync(dir) && !find(dir)) fs.rmSync(dir, { recursive: true, force: true }); // stale or broken
    try {
      fs.renameSync(staging, dir);
    } catch (err) {
      if (!find(dir)) throw err; // someone else installed it first; theirs is as good as ours
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  const tools = find(dir);
  if (!tools) throw new Error(`tools missing from ${dir} after installation`);
  return tools;
}

/** One installation per test process; a failed one is tried again on the next call. */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= fn().catch((err: unknown) => {
      pending = undefined;
      throw err;
    }));
}

export function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}
