// A PyPI of the test's own: the fixture server in tests/fixtures/python-server built by its own
// in-tree backend (the standard library only) into wheels and sdists, laid out as a PEP 503
// "simple" repository and served by a test host on this machine (a network namespace the test
// creates, on a public-looking TEST-NET address that no packet leaves the machine for), which
// the sandbox's installs reach like any public index.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { canCreateTestHosts, createTestHosts, type TestHosts } from "./netns.js";

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL("../fixtures/python-server/", import.meta.url));
export const PY_FIXTURE = "switchboard-pyfixture";

/** Whether this machine can build and serve the test index (root for the test host, python3 with venv). */
export async function pythonIndexUnavailable(): Promise<string | null> {
  const hosts = await canCreateTestHosts();
  if (hosts) return hosts;
  const ok = await run("/usr/bin/python3", ["-c", "import venv, ensurepip"]).then(
    () => true,
    () => false,
  );
  return ok ? null : "needs /usr/bin/python3 with venv (Debian: python3-venv)";
}

export interface PythonIndex {
  /** PYPI_INDEX_URL for the app */
  url: string;
  /** the folder served: simple/ and files/ */
  root: string;
  /** Builds more releases and lists them on the project's page. */
  publish(project: Project): Promise<void>;
  close(): Promise<void>;
}

export interface Project {
  /** the project's name (default the fixture's) */
  name?: string;
  releases: Record<string, Array<"wheel" | "sdist">>;
  /** files of the fixture replaced or added (a hostile build backend, say) */
  files?: Record<string, string>;
}

/** Builds the fixture at each version (`wheel` and/or `sdist`) into `root/files`. */
async function buildFixture(root: string, project: Project): Promise<string[]> {
  const releases = project.releases;
  const files = path.join(root, "files");
  await fs.mkdir(files, { recursive: true });
  const built: string[] = [];
  for (const [version, kinds] of Object.entries(releases)) {
    const src = await fs.mkdtemp(path.join(os.tmpdir(), "pyfixture-src-"));
    try {
      await fs.cp(FIXTURE, src, { recursive: true, filter: (f) => !f.includes("__pycache__") });
      for (const [rel, text] of Object.entries(project.files ?? {})) await fs.writeFile(path.join(src, rel), text);
      const toml = path.join(src, "pyproject.toml");
      let pyproject = (await fs.readFile(toml, "utf8")).replace(/^version = ".*"$/m, `version = "${version}"`);
      if (project.name) pyproject = pyproject.replace(/^name = ".*"$/m, `name = "${project.name}"`);
      await fs.writeFile(toml, pyproject);
      const calls = kinds.map((k) => (k === "wheel" ? "backend.build_wheel(out)" : "backend.build_sdist(out)")).join(", ");
      const { stdout } = await run(
        "/usr/bin/python3",
        ["-c", `import sys, json; sys.path.insert(0, "_build"); import backend; out = sys.argv[1]; print(json.dumps([${calls}]))`, files],
        { cwd: src },
      );
      built.push(...(JSON.parse(stdout) as string[]));
    } finally {
      await fs.rm(src, { recursive: true, force: true });
    }
  }
  return built;
}

/** The project's page: every file built for it so far, with its sha256. */
async function writeIndex(root: string, project: string): Promise<void> {
  const prefix = `${project.replace(/[-_.]+/g, "_")}-`;
  const files = (await fs.readdir(path.join(root, "files"))).filter((f) => f.startsWith(prefix)).sort();
  const links = await Promise.all(
    files.map(async (f) => {
      const sha = createHash("sha256")
        .update(await fs.readFile(path.join(root, "files", f)))
        .digest("hex");
      return `<a href="../../files/${f}#sha256=${sha}" data-requires-python="&gt;=3.10">${f}</a><br/>`;
    }),
  );
  await fs.mkdir(path.join(root, "simple", project), { recursive: true });
  const projects = (await fs.readdir(path.join(root, "simple"), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  await fs.writeFile(
    path.join(root, "simple", "index.html"),
    `<!DOCTYPE html><html><body>${projects.map((p) => `<a href="${p}/">${p}</a>`).join("\n")}</body></html>`,
  );
  await fs.writeFile(path.join(root, "simple", project, "index.html"), `<!DOCTYPE html><html><body>${links.join("\n")}</body></html>`);
}

/**
 * The index with the fixture's releases (default: 1.0.0 as wheel and sdist, 2.0.0 as an sdist
 * only, so the newest one must be built from source) on a test host at `address`.
 */
export async function startPythonIndex(opts: { address?: string; port?: number; projects?: Project[] } = {}): Promise<PythonIndex> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "test-pypi-"));
  let hosts: TestHosts | undefined;
  try {
    for (const project of opts.projects ?? [{ releases: { "1.0.0": ["wheel", "sdist"], "2.0.0": ["sdist"] } }]) {
      await buildFixture(root, project);
      await writeIndex(root, project.name ?? PY_FIXTURE);
    }
    await fs.chmod(root, 0o755);
    const address = opts.address ?? "198.51.100.9";
    const port = opts.port ?? 7781;
    hosts = await createTestHosts([address], port, { serveDir: root });
    const h = hosts;
    return {
      url: `http://${address}:${port}/simple/`,
      root,
      publish: async (project) => {
        await buildFixture(root, project);
        await writeIndex(root, project.name ?? PY_FIXTURE);
      },
      close: async () => {
        await h.close();
        await fs.rm(root, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await hosts?.close();
    await fs.rm(root, { recursive: true, force: true });
    throw e;
  }
}
