import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { InstallError } from "../package-files.js";
import { SANDBOX_PATH, systemRoots } from "../../sandbox/bwrap.js";
import { hostRun } from "../../sandbox/host-process.js";
import { readTenantFile, readTenantJson, tenantPathKind } from "../../sandbox/tenant-files.js";

// What the platform reads of a Python environment pip filled (site-packages, dist-info folders,
// entry_points.txt, direct_url.json), always through the no-follow readers of tenant-files.ts:
// an sdist's build or a repository's own steps wrote it. And the machine's interpreter.

export const PYTHON_MIN: readonly [number, number] = [3, 10];

/** PEP 503 normalised name: the same project however it is spelled. */
export const normalisedName = (name: string) => name.toLowerCase().replace(/[-_.]+/g, "-");

export async function findPython(setting: string): Promise<string> {
  const candidates = path.isAbsolute(setting) ? [setting] : SANDBOX_PATH.split(":").map((d) => path.join(d, setting));
  const found = candidates.find((c) => existsSync(c));
  if (!found)
    throw new InstallError(
      `Python servers need Python ${PYTHON_MIN.join(".")} or newer on this host, and ${setting} was not found (set PYTHON, or install python3 and python3-venv)`,
    );
  if (!systemRoots().some((r) => found === r || found.startsWith(`${r}/`)))
    throw new InstallError(`PYTHON (${found}) must live under ${systemRoots().join(", ")}, which the sandbox can see`);
  const probe = "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2])";
  const out = await hostRun(found, ["-I", "-c", probe], { timeout: 10_000 }).then(
    (r) => r.stdout.trim(),
    () => null,
  );
  if (out === null) throw new InstallError(`${found} cannot create virtual environments (install python3-venv)`);
  const [major = 0, minor = 0] = out.split(".").map(Number);
  if (major < PYTHON_MIN[0] || (major === PYTHON_MIN[0] && minor < PYTHON_MIN[1]))
    throw new InstallError(`Python servers need Python ${PYTHON_MIN.join(".")} or newer; ${found} is ${out}`);
  return found;
}

/** The environment's site-packages folder (lib/python3.X/site-packages), found without following links. */
export async function sitePackages(venv: string): Promise<string> {
  if ((await tenantPathKind(venv, "lib")) !== "dir") throw new InstallError("The virtual environment has no lib folder (or it is a link)");
  const lib = await fs.readdir(path.join(venv, "lib")).catch(() => [] as string[]);
  for (const v of lib.filter((d) => /^python3\.\d+$/.test(d))) {
    if ((await tenantPathKind(venv, `lib/${v}/site-packages`)) === "dir") return path.join(venv, "lib", v, "site-packages");
  }
  throw new InstallError("The virtual environment has no site-packages folder");
}

export interface Dist {
  name: string;
  version: string;
  dir: string;
}

export async function dists(site: string): Promise<Dist[]> {
  const names = (await fs.readdir(site).catch(() => [] as string[])).filter((d) => d.endsWith(".dist-info"));
  return names.flatMap((d) => {
    const base = d.slice(0, -".dist-info".length);
    const dash = base.lastIndexOf("-");
    return dash > 0 ? [{ name: base.slice(0, dash), version: base.slice(dash + 1), dir: path.join(site, d) }] : [];
  });
}

/** The distribution pip installed from the repository's folder (its direct_url.json names it). */
export async function projectDist(site: string, app: string): Promise<Dist | undefined> {
  for (const d of await dists(site)) {
    const direct = await readTenantJson<{ url?: string; dir_info?: object }>(d.dir, "direct_url.json").catch(() => null);
    if (!direct?.dir_info || typeof direct.url !== "string" || !URL.canParse(direct.url)) continue;
    const where = new URL(direct.url);
    if (where.protocol === "file:" && safeDecode(where.pathname) === app) return d;
  }
  return undefined;
}

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** The [console_scripts] names of a dist-info's entry_points.txt (names only: the script files run them). */
export async function consoleScripts(distDir: string): Promise<string[]> {
  const text = await readTenantFile(path.dirname(distDir), `${path.basename(distDir)}/entry_points.txt`, 256 * 1024).catch(() => null);
  return parseConsoleScripts(text ?? "");
}

export function parseConsoleScripts(text: string): string[] {
  const out: string[] = [];
  let inSection = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("[")) inSection = line === "[console_scripts]";
    else if (inSection && line && !line.startsWith("#") && !line.startsWith(";")) {
      const name = line.split("=")[0]!.trim();
      if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) out.push(name);
    }
  }
  return out;
}
