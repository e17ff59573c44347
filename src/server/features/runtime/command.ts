import { AppError } from "../../errors.js";
import { checkArgs, fail, lex } from "./command-lex.js";
import { isBareImage, parseDockerCommand } from "./sources/image/docker.js";
import { parseGitUrl } from "./sources/git/git-url.js";
import { parseNpxCommand } from "./sources/npm/npx.js";
import type { HostedSource } from "./runner.js";
import { parseUvxCommand } from "./sources/python/uvx.js";

// What a deployment runs, from the command a catalogue entry or its owner gives (the spec's
// npx_command field, which also takes uvx and `python -m`) and a repository URL.

export const COMMAND_TEXT = {
  unknown: 'The command must start with "npx", "uvx" or "docker run", or be an image reference (or "python -m" for a repository)',
  pythonNeedsRepository: '"python -m" runs a module of a repository: give the repository URL as well',
  onlyModule: 'A repository\'s Python code runs only as "python -m <module> [arguments]"',
  invalidModule: (name: string) => `Invalid Python module name "${name}"`,
} as const;

const MODULE = /^[A-Za-z_][A-Za-z0-9_]{0,99}(?:\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,9}$/;

/** `python -m module [args]` (or python3): the module and its arguments. */
export function parsePythonModule(input: string): { module: string; args: string[] } {
  const tokens = lex(input, "python");
  if (tokens[1] !== "-m" || tokens[2] === undefined) fail(COMMAND_TEXT.onlyModule);
  if (!MODULE.test(tokens[2])) fail(COMMAND_TEXT.invalidModule(tokens[2]));
  return { module: tokens[2], args: checkArgs(tokens.slice(3), "python", () => undefined) };
}

const firstWord = (command: string) => command.trim().split(/[ \t]+/)[0];

/** Which runtime a command names, without checking the rest ("npx", "uvx", "python", "docker" (an image) or null). */
export function commandKind(command: string | null | undefined): "npx" | "uvx" | "python" | "docker" | null {
  const w = command ? firstWord(command) : undefined;
  if (w === "npx" || w === "uvx" || w === "docker") return w;
  if (w === "python" || w === "python3") return "python";
  return command && isBareImage(command) ? "docker" : null;
}

/** The source a command and/or repository URL describe; null when neither is given. Throws a validation error in the user's words. */
export function sourceFrom(
  command: string | null | undefined,
  repositoryUrl: string | null | undefined,
  opts: { allowFileGit: boolean },
): HostedSource | null {
  const repo = () => parseGitUrl(repositoryUrl!, { allowFile: opts.allowFileGit }).url;
  if (command && command.trim()) {
    const kind = commandKind(command);
    if (kind === "npx") {
      const p = parseNpxCommand(command);
      return { kind: "npm", package: p.package, version: p.version, args: p.args };
    }
    if (kind === "uvx") {
      const p = parseUvxCommand(command);
      return { kind: "pypi", package: p.package, version: p.version, command: p.command, args: p.args };
    }
    if (kind === "docker") {
      const p = parseDockerCommand(command);
      return { kind: "image", image: p.image, args: p.args, ...(p.port === undefined ? {} : { port: p.port }) };
    }
    if (kind === "python") {
      const p = parsePythonModule(command);
      if (!repositoryUrl) fail(COMMAND_TEXT.pythonNeedsRepository);
      return { kind: "git", url: repo(), args: p.args, module: p.module };
    }
    // Not one of ours: the npx grammar's own checks speak first (shell characters, length), then this.
    lex(command, "npx");
    throw new AppError("validation_failed", COMMAND_TEXT.unknown);
  }
  if (repositoryUrl) return { kind: "git", url: repo(), args: [] };
  return null;
}
