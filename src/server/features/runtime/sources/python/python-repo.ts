import path from "node:path";
import { InstallError } from "../package-files.js";
import { consoleScripts, normalisedName, projectDist, sitePackages } from "./python-files.js";
import type { PythonRuntime, Step } from "./python.js";
import { removeTree, tenantPathKind } from "../../sandbox/tenant-files.js";

// A Python repository: its project (or its requirements) installed by pip into a virtual
// environment in the deployment's own volume, by the deployment's own sandboxed steps, from the
// platform's index; then `python -m <module>`, or the project's console script.

/**
 * A repository's Python project, installed into `venv` with the deployment's own steps; returns
 * the argv that runs it: `python -m module`, else the project's console script.
 */
export async function buildPythonRepo(
  py: PythonRuntime,
  step: Step,
  app: string,
  venv: string,
  module: string | undefined,
  args: string[],
): Promise<string[]> {
  const python = await py.interpreter();
  await removeTree(venv);
  const env = py.pipEnv(path.dirname(venv));
  await step("Creating the virtual environment", [python, "-I", "-m", "venv", venv], { cwd: app, env });
  const vpython = path.join(venv, "bin", "python");
  const project = (await tenantPathKind(app, "pyproject.toml")) === "file" || (await tenantPathKind(app, "setup.py")) === "file";
  if (project) await step("pip install", [...py.pipInstall(vpython), app], { cwd: app, env });
  else if ((await tenantPathKind(app, "requirements.txt")) === "file")
    await step("pip install", [...py.pipInstall(vpython), "-r", "requirements.txt"], { cwd: app, env });
  if (module) return [vpython, "-m", module, ...args];
  if (!project) throw new InstallError('The repository has no pyproject.toml or setup.py: give the command "python -m <module>" to run it');
  const site = await sitePackages(venv);
  const own = await projectDist(site, app);
  const scripts = own ? await consoleScripts(own.dir) : [];
  const named = own && scripts.find((s) => normalisedName(s) === normalisedName(own.name));
  const script = scripts.length === 1 ? scripts[0] : named;
  if (!script) {
    const why = scripts.length ? `several console scripts (${scripts.slice(0, 10).join(", ")})` : "no console script";
    throw new InstallError(`The repository's Python project has ${why}: give the command "python -m <module>" to say what to run`);
  }
  if ((await tenantPathKind(venv, `bin/${script}`)) !== "file") throw new InstallError(`The console script ${script} was not installed`);
  return [vpython, path.join(venv, "bin", script), ...args];
}
