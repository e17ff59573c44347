// Installs and runs the official MCP conformance suite (@modelcontextprotocol/conformance) against an
// MCP server URL. The suite's CLI needs Node >= 22, so a Node 22 binary is installed next to it, in a
// cache directory outside the project: neither ever goes into the project's package.json (a `node`
// dependency would put its binary first on the PATH of every npm script).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { installCached, once, readJson, run } from "./tool-cache.js";

export const CONFORMANCE_VERSION = "0.1.16";
const NODE_MAJOR = "22";
const CACHE_DIR = path.join(os.tmpdir(), "switchboard-conformance-tools");

export interface ConformanceTools {
  /** absolute path of a Node 22 binary */
  node: string;
  /** absolute path of the conformance CLI's JS entry file (run it with `node`) */
  cli: string;
}

export interface ConformanceResult {
  /** scenarios without a FAILURE check (they may still have warnings, see `output`) */
  passed: string[];
  failed: { scenario: string; detail: string }[];
  /** everything the CLI printed (stdout and stderr) */
  output: string;
}

/**
 * The npm package that holds the bare Node binary for this machine. The `node` package itself only
 * has a preinstall script that installs this one; installing it directly needs no install scripts.
 */
function nodeBinaryPackage(): string {
  const platform = process.platform === "win32" ? "win" : process.platform;
  const prefix = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
  return `${prefix}-${platform}-${process.arch}`;
}

/** Returns the tools installed under `dir`, or null when they are missing or not the wanted versions. */
function findTools(dir: string): ConformanceTools | null {
  const modules = path.join(dir, "node_modules");
  const conformancePkg = readJson(path.join(modules, "@modelcontextprotocol/conformance/package.json"));
  if (conformancePkg?.version !== CONFORMANCE_VERSION) return null;
  const nodePkgDir = path.join(modules, nodeBinaryPackage());
  const nodePkg = readJson(path.join(nodePkgDir, "package.json"));
  if (typeof nodePkg?.version !== "string" || !nodePkg.version.startsWith(`${NODE_MAJOR}.`)) return null;
  const bin = (nodePkg.bin as Record<string, string> | undefined)?.node ?? "bin/node";
  const node = path.join(nodePkgDir, bin);
  const cli = path.join(modules, "@modelcontextprotocol/conformance/dist/index.js");
  if (!fs.existsSync(node) || !fs.existsSync(cli)) return null;
  return { node, cli };
}

/**
 * Installs (once; cached in `${os.tmpdir()}/switchboard-conformance-tools`) a Node 22 binary and
 * @modelcontextprotocol/conformance, and returns their paths.
 */
export const ensureConformanceTools = once(() =>
  installCached(
    CACHE_DIR,
    { "@modelcontextprotocol/conformance": CONFORMANCE_VERSION, [nodeBinaryPackage()]: `^${NODE_MAJOR}` },
    findTools,
  ),
);

// ---- running the suite -----------------------------------------------------------------------------

interface Check {
  id?: string;
  name?: string;
  description?: string;
  status?: string;
  errorMessage?: string;
}

// The CLI saves each scenario's checks in <output-dir>/server-<scenario>-<ISO time with : and . as ->/
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

function readChecks(outputDir: string): Map<string, Check[]> {
  const result = new Map<string, Check[]>();
  for (const entry of fs.readdirSync(outputDir, { withFileTypes: true })) {
    const m = entry.isDirectory() ? RESULT_DIR.exec(entry.name) : null;
    const checks = m ? readJson(path.join(outputDir, entry.name, "checks.json")) : null;
    if (m?.[1] && Array.isArray(checks)) result.set(m[1], checks as Check[]);
  }
  return result;
}

function describeFailures(checks: Check[]): string {
  return checks
    .filter((c) => c.status === "FAILURE")
    .map((c) => `${c.name ?? c.id ?? "check"}: ${c.errorMessage ?? c.description ?? "failed"}`)
    .join("; ");
}

/**
 * Runs `conformance server --url <url> --suite active --spec-version <v>` and reports which scenarios
 * passed (no FAILURE check) and which failed, with the failed checks' messages.
 */
export async function runConformance(opts: {
  node: string;
  cli: string;
  url: string;
  specVersion: "2025-06-18" | "2025-11-25";
  timeoutMs?: number;
}): Promise<ConformanceResult> {
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-conformance-run-"));
  try {
    const args = [opts.cli, "server", "--url", opts.url, "--suite", "active", "--spec-version", opts.specVersion];
    const { code, output } = await run(opts.node, [...args, "--output-dir", outputDir], outputDir, opts.timeoutMs ?? 300_000);

    const checks = readChecks(outputDir);
    // The summary at the end lists every scenario: "✓ name: 3 passed, 0 failed" / "✗ name: ..."
    const summary = new Map<string, boolean>();
    for (const m of output.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed/gmu)) summary.set(m[2]!, m[1] === "✓");
    // Scenarios that started (they are run one after another) but may not have finished.
    const started = [...output.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]!);

    const passed: string[] = [];
    const failed: { scenario: string; detail: string }[] = [];
    for (const scenario of new Set([...started, ...summary.keys(), ...checks.keys()])) {
      const scenarioChecks = checks.get(scenario);
      const ok = scenarioChecks ? !scenarioChecks.some((c) => c.status === "FAILURE") : summary.get(scenario);
      if (ok === true) passed.push(scenario);
      else if (scenarioChecks) failed.push({ scenario, detail: describeFailures(scenarioChecks) });
      else if (ok === false) failed.push({ scenario, detail: "failed (no checks saved; see output)" });
      else failed.push({ scenario, detail: "did not finish (timeout or crash; see output)" });
    }
    if (code !== 0 && failed.length === 0) {
      failed.push({ scenario: "(conformance cli)", detail: `exited with ${code}; see output` });
    }
    return { passed, failed, output };
  } finally {
    fs.rmSync(outputDir, { recursive: true, force: true });
  }
}
