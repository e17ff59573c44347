// Builds a throwaway git repository holding the zero-dependency MCP server in
// tests/fixtures/mcp-fixture, so tests can install an MCP server "from git" via a file:// URL.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

const projectRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixtureSource = path.join(projectRoot, "tests/fixtures/mcp-fixture");

export interface FixtureRepo {
  /** the repository's working directory */
  dir: string;
  /** file:// URL of the repository, usable with `git clone` */
  url: string;
  cleanup(): Promise<void>;
}

async function git(cwd: string, args: string[]): Promise<void> {
  try {
    await execFileAsync("git", args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${e.stderr || e.message}`, { cause: err });
  }
}

/**
 * Copies the MCP fixture server into a new temp directory, writes (or overrides) `opts.files`
 * (paths relative to the repository root), and commits everything on branch `main`.
 */
export async function createFixtureRepo(
  opts: {
    files?: Record<string, string>;
    /** a directory under tests/fixtures (default mcp-fixture) */
    fixture?: string;
    /** paths (of `files` or the fixture) committed executable */
    executables?: string[];
    /** symbolic links committed as such: path -> target (absolute targets point into the host) */
    symlinks?: Record<string, string>;
    /** paths of the fixture left out */
    remove?: string[];
  } = {},
): Promise<FixtureRepo> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "mcp-fixture-repo-"));
  const cleanup = () => fs.rm(dir, { recursive: true, force: true });
  try {
    await fs.cp(opts.fixture ? path.join(projectRoot, "tests/fixtures", opts.fixture) : fixtureSource, dir, {
      recursive: true,
      filter: (src) => !["node_modules", ".git"].includes(path.basename(src)),
    });
    for (const [rel, content] of Object.entries(opts.files ?? {})) {
      const target = path.resolve(dir, rel);
      const inside = path.relative(dir, target);
      if (inside === "" || inside === ".." || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) {
        throw new Error(`fixture file path escapes the repository: ${rel}`);
      }
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, content);
    }
    for (const rel of opts.remove ?? []) await fs.rm(path.join(dir, rel), { recursive: true, force: true });
    for (const rel of opts.executables ?? []) await fs.chmod(path.join(dir, rel), 0o755);
    for (const [rel, target] of Object.entries(opts.symlinks ?? {})) {
      const link = path.join(dir, rel);
      await fs.rm(link, { force: true });
      await fs.mkdir(path.dirname(link), { recursive: true });
      await fs.symlink(target, link);
    }
    await git(dir, ["init", "-q", "-b", "main"]);
    await git(dir, ["add", "-A"]);
    await git(dir, ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "fixture"]);
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { dir, url: pathToFileURL(dir).href, cleanup };
}
