// A deployment's git repository, cloned, installed and built in the deployment's own sandbox, as
// its uid: whatever its .npmrc, lockfile or build script makes npm or git run, runs there. The
// platform reads the repository's files only without following links (tenant-files.ts).
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { assertPublicGitHost, parseGitUrl } from "./git-url.js";
import { caFiles, tenantEnv } from "../install-env.js";
import { entryPoint, InstallError, sealTree, serverJsonArgs } from "../package-files.js";
import type { Identity } from "../../sandbox/identity.js";
import { StepError } from "../../sandbox/index.js";
import { readTenantJson, removeTree, tenantPathKind } from "../../sandbox/tenant-files.js";
import type { PythonRuntime, Step } from "../python/python.js";
import { buildPythonRepo } from "../python/python-repo.js";
import type { Source } from "../../runner.js";
import type { CacheOptions } from "../cache-options.js";

/** Of the caches' options, what a clone and build in the deployment's own sandbox needs, and: */
export interface GitBuildOptions extends Pick<CacheOptions, "packagesDir" | "sandbox" | "timeoutMs" | "limits"> {
  allowFileGit: boolean;
  /** Python repositories */
  python: PythonRuntime;
}

/** What runs a built repository: its argv, where it starts (default: the deployment's folder), the host folders it reads. */
export interface Built {
  argv: string[];
  cwd?: string;
  readOnly: string[];
}

/** A root-owned git config for cloning tests' file:// repositories (GIT_ALLOW_FILE, never in production). */
async function fileRepoGitConfig(packagesDir: string): Promise<string> {
  const dir = path.join(packagesDir, ".cache");
  const file = path.join(dir, "gitconfig-file-repositories");
  await fs.mkdir(dir, { recursive: true });
  await fs.chmod(dir, 0o711);
  await fs.writeFile(file, "[safe]\n\tdirectory = *\n");
  await fs.chmod(file, 0o644);
  return file;
}

/** A root-owned, world-readable copy of a test's file:// repository (links copied as links, never followed). */
async function stageFileRepo(packagesDir: string, id: string, repo: string): Promise<string> {
  const dir = path.join(packagesDir, ".cache", "file-repositories");
  await fs.mkdir(dir, { recursive: true });
  await fs.chmod(dir, 0o711);
  const copy = path.join(dir, `${id}-${randomBytes(4).toString("hex")}`);
  await fs.cp(repo, copy, { recursive: true, verbatimSymlinks: true });
  await sealTree(copy);
  return copy;
}

/** Clones `source` into the deployment's folder and builds it: a Python project, else a Node.js package (node via `nodeArgv`). */
export async function buildFromGit(
  o: GitBuildOptions,
  nodeArgv: (entry: string, args: string[]) => string[],
  id: string,
  workDir: string,
  identity: Identity | null,
  source: Extract<Source, { kind: "git" }>,
  signal?: AbortSignal,
): Promise<Built> {
  const { url, kind } = parseGitUrl(source.url, { allowFile: o.allowFileGit });
  if (kind === "https") await assertPublicGitHost(url);
  const app = path.join(workDir, "app");
  // rm never follows a link the last checkout left.
  await removeTree(app);
  // Tests' file:// repositories belong to another uid than the clone's, which git refuses unless
  // a global config says otherwise (git 2.39 ignores safe.directory given on the command line);
  // and they may sit in a folder only root can read, so the clone reads a world-readable copy.
  const fileConfig = kind === "file" ? await fileRepoGitConfig(o.packagesDir) : null;
  const staged = kind === "file" ? await stageFileRepo(o.packagesDir, id, new URL(url).pathname) : null;
  const env = { ...tenantEnv(workDir), ...(fileConfig ? { GIT_CONFIG_GLOBAL: fileConfig } : {}) };
  const step = async (what: string, argv: string[], cwd: string, readOnly: string[] = [], extraEnv: Record<string, string> = {}) => {
    try {
      await o.sandbox.run(
        {
          argv,
          env: { ...env, ...extraEnv },
          cwd,
          writable: [workDir],
          readOnly: [...readOnly, ...caFiles()],
          network: true,
          identity,
          limits: o.limits,
          label: id,
        },
        o.timeoutMs,
        signal,
      );
    } catch (e) {
      if (e instanceof StepError) throw new InstallError(`${what} failed: ${e.message}`);
      throw e;
    }
  };
  const protocols = [
    "-c",
    "protocol.allow=never",
    "-c",
    "protocol.https.allow=always",
    ...(kind === "file" ? ["-c", "protocol.file.allow=always"] : []),
  ];
  // No submodules, no hooks, no redirects to somewhere unchecked; and it runs sandboxed anyway.
  try {
    const from = staged ? pathToFileURL(staged).href : url;
    await step(
      "git clone",
      [
        "git",
        ...protocols,
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "http.followRedirects=false",
        "clone",
        "--depth",
        "1",
        "--no-recurse-submodules",
        "--single-branch",
        "--",
        from,
        app,
      ],
      workDir,
      staged && fileConfig ? [staged, fileConfig] : [],
    );
  } finally {
    if (staged) await fs.rm(staged, { recursive: true, force: true });
  }
  const pkg = await readTenantJson<{ dependencies?: object; devDependencies?: object; scripts?: Record<string, string> }>(
    app,
    "package.json",
  );
  if (source.module || (!pkg && (await isPythonProject(app)))) {
    const pyStep: Step = (what, argv, o) => step(what, argv, o.cwd, o.readOnly, o.env);
    const argv = await buildPythonRepo(o.python, pyStep, app, path.join(workDir, ".venv"), source.module, [
      ...(await serverJsonArgs(app)),
      ...source.args,
    ]);
    return { argv, cwd: app, readOnly: caFiles() };
  }
  if (!pkg)
    throw new InstallError(
      "The repository has no package.json, pyproject.toml, setup.py or requirements.txt: only Node.js and Python servers can be built from a repository",
    );
  const locked =
    (await tenantPathKind(app, "package-lock.json")) !== "missing" || (await tenantPathKind(app, "npm-shrinkwrap.json")) !== "missing";
  if (locked) await step("npm ci", ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], app);
  else if (Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).length > 0)
    await step("npm install", ["npm", "install", "--ignore-scripts", "--no-package-lock", "--no-audit", "--no-fund"], app);
  if (typeof pkg.scripts?.build === "string") await step("npm run build", ["npm", "run", "build"], app);
  const args = [...(await serverJsonArgs(app)), ...source.args];
  return { argv: nodeArgv(await entryPoint(app, null), args), readOnly: caFiles() };
}

async function isPythonProject(app: string): Promise<boolean> {
  for (const f of ["pyproject.toml", "setup.py", "requirements.txt"]) if ((await tenantPathKind(app, f)) !== "missing") return true;
  return false;
}
