// Installs and runs the official MCP Inspector's CLI (@modelcontextprotocol/inspector, `--cli` mode)
// against an MCP server URL. Inspector 2.x needs Node >= 22.19, so it runs on the Node 22 binary the
// conformance tools install; the inspector itself goes into its own cache directory outside the
// project, never into package.json (its web UI pulls in vite, react and a native keyring).
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureConformanceTools } from "./conformance.js";
import { installCached, once, readJson } from "./tool-cache.js";

export const INSPECTOR_VERSION = "2.12.0";
const CACHE_DIR = path.join(os.tmpdir(), "switchboard-inspector-tools");
// The launcher (`inspector --cli ...`) only forwards to this file; running it directly skips a process.
const CLI_ENTRY = "node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js";

export interface InspectorTools {
  /** absolute path of a Node 22 binary */
  node: string;
  /** absolute path of the inspector CLI's JS entry file (run it with `node`) */
  cli: string;
}

function findCli(dir: string): string | null {
  const pkg = readJson(path.join(dir, "node_modules/@modelcontextprotocol/inspector/package.json"));
  const cli = path.join(dir, CLI_ENTRY);
  return pkg?.version === INSPECTOR_VERSION && fs.existsSync(cli) ? cli : null;
}

/** Installs (once; cached in `${os.tmpdir()}/switchboard-inspector-tools`) the inspector and a Node 22 binary to run it. */
export const ensureInspector = once(async (): Promise<InspectorTools> => {
  const [{ node }, cli] = await Promise.all([
    ensureConformanceTools(),
    installCached(CACHE_DIR, { "@modelcontextprotocol/inspector": INSPECTOR_VERSION }, findCli),
  ]);
  return { node, cli };
});

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
  const args = [
    tools.cli,
    "--format",
    "json",
    "--stored-auth-only",
    "--transport",
    opts.transport ?? "http",
    "--server-url",
    opts.url,
    "--header",
    `Authorization: Bearer ${opts.key}`,
    ...opts.args,
  ];
  const env = {
    ...process.env,
    MCP_STORAGE_DIR: state,
    MCP_CATALOG_PATH: path.join(state, "mcp.json"),
    MCP_CLIENT_CONFIG_PATH: path.join(state, "client.json"),
  };
  try {
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        tools.node,
        args,
        { env, cwd: state, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          // The command line in err.message holds the key; a failure report should not.
          if (err)
            reject(
              new Error(
                `inspector ${opts.args.join(" ")} failed: ${err.message.replaceAll(opts.key, "<key>")}\nstdout: ${stdout}\nstderr: ${stderr}`,
              ),
            );
          else resolve({ stdout, stderr });
        },
      );
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
