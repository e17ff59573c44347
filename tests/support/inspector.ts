// Installs and runs the official MCP Inspector's CLI (@modelcontextprotocol/inspector, `--cli` mode)
// against an MCP server URL. Inspector 2.x needs Node >= 22.19, so it runs on the Node 22 binary the
// conformance tools install; the inspector itself goes into its own cache directory outside the
// project, never into package.json (its web UI pulls in vite, react and a native keyring).
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureConformanceTools } from "./conformance.js";

export const INSPECTOR_VERSION = "2.12.0";
const CACHE_DIR = path.join(os.tmpdir(), "switchboard-inspector-tools");
const INSTALL_TIMEOUT_MS = 10 * 60_000;
// The launcher (`inspector --cli ...`) only forwards to this file; running it directly skips a process.
const CLI_ENTRY = "node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js";

export interface InspectorTools {
  /** absolute path of a Node 22 binary */
  node: string;
  /** absolute path of the inspector CLI's JS entry file (run it with `node`) */
  cli: string;
}

function installedVersion(dir: string): string | undefined {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/@modelcontextprotocol/inspector/package.json"), "utf8")) as { version?: string };
    return pkg.version;
  } catch {
    return undefined;
  }
}

const complete = (dir: string) => installedVersion(dir) === INSPECTOR_VERSION && fs.existsSync(path.join(dir, CLI_ENTRY));

function npmInstall(cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    // process.env unchanged, so proxy variables and NODE_EXTRA_CA_CERTS apply.
    const child = spawn(npm, ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${INSTALL_TIMEOUT_MS} ms]\n`;
      child.kill("SIGKILL");
    }, INSTALL_TIMEOUT_MS);
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

async function install(): Promise<string> {
  if (complete(CACHE_DIR)) return path.join(CACHE_DIR, CLI_ENTRY);
  // Staging directory + rename, as for the conformance tools: a concurrent installer either wins
  // or finds a complete installation.
  const staging = `${CACHE_DIR}.staging-${process.pid}-${randomBytes(4).toString("hex")}`;
  fs.mkdirSync(staging, { recursive: true });
  try {
    const pkg = { name: "switchboard-inspector-tools", private: true, dependencies: { "@modelcontextprotocol/inspector": INSPECTOR_VERSION } };
    fs.writeFileSync(path.join(staging, "package.json"), JSON.stringify(pkg, null, 2));
    const { code, output } = await npmInstall(staging);
    if (code !== 0) throw new Error(`npm install of @modelcontextprotocol/inspector@${INSPECTOR_VERSION} failed (exit ${code}) in ${staging}:\n${output}`);
    if (!complete(staging)) throw new Error(`npm install succeeded but ${CLI_ENTRY} is not in ${staging}:\n${output}`);
    if (fs.existsSync(CACHE_DIR) && !complete(CACHE_DIR)) fs.rmSync(CACHE_DIR, { recursive: true, force: true }); // stale version or broken
    try {
      fs.renameSync(staging, CACHE_DIR);
    } catch (err) {
      if (!complete(CACHE_DIR)) throw err; // someone else installed it first
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  if (!complete(CACHE_DIR)) throw new Error(`inspector missing from ${CACHE_DIR} after installation`);
  return path.join(CACHE_DIR, CLI_ENTRY);
}

let installing: Promise<InspectorTools> | undefined;

/** Installs (once; cached in `${os.tmpdir()}/switchboard-inspector-tools`) the inspector and a Node 22 binary to run it. */
export function ensureInspector(): Promise<InspectorTools> {
  installing ??= (async () => {
    const [{ node }, cli] = await Promise.all([ensureConformanceTools(), install()]);
    return { node, cli };
  })().catch((err: unknown) => {
    installing = undefined;
    throw err;
  });
  return installing;
}

/**
 * Runs `inspector --cli --format json --transport <t> --server-url <url> --header "Authorization: Bearer <key>" ...args`
 * and returns the parsed `result` of its JSON output. The inspector's own state (catalog, OAuth
 * store, client config) goes into a temporary directory, not the user's ~/.mcp-inspector, and
 * --stored-auth-only keeps it from starting an interactive OAuth login if the key is refused.
 */
export async function runInspector<T = Record<string, unknown>>(
  tools: InspectorTools,
  opts: { url: string; key: string; transport?: "http" | "sse"; args: string[]; timeoutMs?: number },
): Promise<T> {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-inspector-run-"));
  const args = [tools.cli, "--format", "json", "--stored-auth-only", "--transport", opts.transport ?? "http", "--server-url", opts.url, "--header", `Authorization: Bearer ${opts.key}`, ...opts.args];
  const env = { ...process.env, MCP_STORAGE_DIR: state, MCP_CATALOG_PATH: path.join(state, "mcp.json"), MCP_CLIENT_CONFIG_PATH: path.join(state, "client.json") };
  try {
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(tools.node, args, { env, cwd: state, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        // The command line in err.message holds the key; a failure report should not.
        if (err) reject(new Error(`inspector ${opts.args.join(" ")} failed: ${err.message.replaceAll(opts.key, "<key>")}\nstdout: ${stdout}\nstderr: ${stderr}`));
        else resolve({ stdout, stderr });
      });
    });
    try {
      return (JSON.parse(stdout) as { result: T }).result;
    } catch {
      throw new Error(`inspector ${opts.args.join(" ")} printed no JSON result:\nstdout: ${stdout}\nstderr: ${stderr}`);
    }
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
}
