import { AppError } from "../../errors.js";

// Users paste an `npx ...` line to deploy an MCP server. We never hand it to a shell: it is parsed
// into a package and argv here, and anything outside this narrow grammar is refused rather than
// escaped, so there is no quoting logic to get wrong.

export interface NpxSpec {
  package: string;
  version: string | null;
  args: string[];
}

const MAX_LENGTH = 500;
const MAX_ARGS = 50;
const MAX_NAME_LENGTH = 214; // npm's own limit

export const NPX_TEXT = {
  empty: "The npx command is empty",
  tooLong: `The npx command may be at most ${MAX_LENGTH} characters`,
  newline: "The npx command must be a single line",
  shell: "The npx command may not contain shell characters such as ; | & $ or quotes",
  unsupported: "The npx command may only contain letters, digits, spaces and the characters @ % + = : , . / _ ~ -",
  mustStartWithNpx: 'The npx command must start with "npx"',
  onlyYes: 'Only "-y" or "--yes" may come before the package in the npx command',
  missingPackage: "The npx command must name a package",
  tooManyArgs: `The npx command may have at most ${MAX_ARGS} arguments`,
  forbiddenOption: (option: string) => `The npx command may not use the ${option} option`,
  invalidPackage: (name: string) => `Invalid npm package name "${name}"`,
  invalidVersion: (version: string) => `Invalid package version "${version}" (use an exact version or a tag such as "latest")`,
} as const;

// Options that would let the command run something other than the named package, fetch it from
// elsewhere or change where npm writes/reads config. Refused anywhere, not only before the package,
// so a future change in how npx splits its own options from the package's cannot reopen them.
const FORBIDDEN_LONG = ["--call", "--registry", "--prefix", "--package", "--userconfig", "--globalconfig", "--node-options", "--script-shell", "--cache", "--global", "--ignore-scripts"];
const FORBIDDEN_SHORT = ["-c", "-p", "-g"];

const SHELL_CHARS = /[;|&$`'"<>(){}*?!\\#[\]^]/;
const TOKEN = /^[A-Za-z0-9@%+=:,./_~-]+$/;
const NAME_PART = "[a-z0-9][a-z0-9._-]*";
const PACKAGE_NAME = new RegExp(`^(?:@${NAME_PART}/)?${NAME_PART}$`);
const VERSION = /^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$/;

function forbiddenOption(token: string): string | undefined {
  // Short options also take attached values (`-csh`), so any token starting with one is refused.
  const short = FORBIDDEN_SHORT.find((o) => token.startsWith(o));
  if (short) return short;
  return FORBIDDEN_LONG.find((o) => token === o || token.startsWith(`${o}=`));
}

function fail(message: string): never {
  throw new AppError("validation_failed", message);
}

function splitPackage(token: string): { name: string; version: string | null } {
  // The scope's leading "@" is not a version separator; the last other "@" is.
  const at = token.lastIndexOf("@");
  if (at <= 0) return { name: token, version: null };
  return { name: token.slice(0, at), version: token.slice(at + 1) };
}

export function parseNpxCommand(input: string): NpxSpec {
  if (input.length > MAX_LENGTH) fail(NPX_TEXT.tooLong);
  if (/[\r\n\0]/.test(input)) fail(NPX_TEXT.newline);
  if (SHELL_CHARS.test(input)) fail(NPX_TEXT.shell);
  if (/[^A-Za-z0-9@%+=:,./_~ \t-]/.test(input)) fail(NPX_TEXT.unsupported);

  const trimmed = input.replace(/^[ \t]+|[ \t]+$/g, "");
  if (trimmed === "") fail(NPX_TEXT.empty);
  const tokens = trimmed.split(/[ \t]+/);
  if (tokens[0] !== "npx") fail(NPX_TEXT.mustStartWithNpx);

  let i = 1;
  let sawYes = false;
  for (; i < tokens.length && tokens[i]!.startsWith("-"); i++) {
    const token = tokens[i]!;
    const forbidden = forbiddenOption(token);
    if (forbidden) fail(NPX_TEXT.forbiddenOption(forbidden));
    if ((token === "-y" || token === "--yes") && !sawYes) sawYes = true;
    else fail(NPX_TEXT.onlyYes);
  }

  const packageToken = tokens[i];
  if (packageToken === undefined) fail(NPX_TEXT.missingPackage);
  const { name, version } = splitPackage(packageToken);
  if (name.length > MAX_NAME_LENGTH || !PACKAGE_NAME.test(name)) fail(NPX_TEXT.invalidPackage(name));
  if (version !== null && !VERSION.test(version)) fail(NPX_TEXT.invalidVersion(version));

  const args = tokens.slice(i + 1);
  if (args.length > MAX_ARGS) fail(NPX_TEXT.tooManyArgs);
  for (const arg of args) {
    const forbidden = forbiddenOption(arg);
    if (forbidden) fail(NPX_TEXT.forbiddenOption(forbidden));
    if (!TOKEN.test(arg)) fail(NPX_TEXT.unsupported);
  }
  return { package: name, version, args };
}
