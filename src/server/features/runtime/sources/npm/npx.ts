import { checkArgs, fail, lex, lexText, optionIn } from "../../command-lex.js";

// Users paste an `npx ...` line to deploy an MCP server. We never hand it to a shell: it is parsed
// into a package and argv here (command-lex.ts has the rules all commands share), and anything
// outside this narrow grammar is refused.

export interface NpxSpec {
  package: string;
  version: string | null;
  args: string[];
}

const MAX_NAME_LENGTH = 214; // npm's own limit

export const NPX_TEXT = {
  ...lexText("npx"),
  mustStartWithNpx: 'The npx command must start with "npx"',
  onlyYes: 'Only "-y" or "--yes" may come before the package in the npx command',
  missingPackage: "The npx command must name a package",
  invalidPackage: (name: string) => `Invalid npm package name "${name}"`,
  invalidVersion: (version: string) => `Invalid package version "${version}" (use an exact version or a tag such as "latest")`,
} as const;

// Options that would let the command run something other than the named package, fetch it from
// elsewhere or change where npm writes/reads config. Refused anywhere, not only before the package,
// so a future change in how npx splits its own options from the package's cannot reopen them.
const FORBIDDEN_LONG = [
  "--call",
  "--registry",
  "--prefix",
  "--package",
  "--userconfig",
  "--globalconfig",
  "--node-options",
  "--script-shell",
  "--cache",
  "--global",
  "--ignore-scripts",
];
const FORBIDDEN_SHORT = ["-c", "-p", "-g"];

const NAME_PART = "[a-z0-9][a-z0-9._-]*";
const PACKAGE_NAME = new RegExp(`^(?:@${NAME_PART}/)?${NAME_PART}$`);
const VERSION = /^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$/;

const forbiddenOption = (token: string) => optionIn(token, FORBIDDEN_LONG, FORBIDDEN_SHORT);

function splitPackage(token: string): { name: string; version: string | null } {
  // The scope's leading "@" is not a version separator; the last other "@" is.
  const at = token.lastIndexOf("@");
  if (at <= 0) return { name: token, version: null };
  return { name: token.slice(0, at), version: token.slice(at + 1) };
}

export function parseNpxCommand(input: string): NpxSpec {
  const tokens = lex(input, "npx");
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

  const args = checkArgs(tokens.slice(i + 1), "npx", forbiddenOption);
  return { package: name, version, args };
}
