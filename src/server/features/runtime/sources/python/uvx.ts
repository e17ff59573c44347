import { checkArgs, fail, lex, lexText, optionIn } from "../../command-lex.js";

// `uvx <package>[==version] [args]` and `uvx --from <package>[==version] <command> [args]`: a PyPI
// package and the console script to run, parsed into data. Switchboard does not run uv: the
// package is installed from the platform's index into a virtual environment of its own (see
// python.ts), so the only part of uv's grammar honoured is the one that names what to run. A
// requirement may only be a name and an exact version from the index: no index, no links, no
// paths, URLs or version-control sources, which would fetch or run something else.

export interface UvxSpec {
  package: string;
  version: string | null;
  /** the console script to run: `--from`'s command, else the one named like the package */
  command: string | null;
  args: string[];
}

export const UVX_TEXT = {
  ...lexText("uvx"),
  mustStartWithUvx: 'The uvx command must start with "uvx"',
  onlyFrom: 'Only "--from <package>" may come before the package in the uvx command',
  missingPackage: "The uvx command must name a package",
  missingCommand: 'The uvx command must name the command to run after "--from <package>"',
  notFromIndex: (token: string) =>
    `The uvx command may only name a package from the package index, not "${token}" (no URLs, local paths, files or version-control sources)`,
  invalidPackage: (name: string) => `Invalid PyPI package name "${name}"`,
  invalidVersion: (version: string) => `Invalid package version "${version}" (use an exact version such as ==1.2.3, or @latest)`,
  invalidCommand: (name: string) => `Invalid command name "${name}"`,
} as const;

// The options that choose where packages come from, add packages, pick another interpreter or
// read other configuration. The long ones are refused anywhere in the command, so that the
// refusal does not depend on where an option parser would stop; the short ones only before the
// package, since after it `-c config.json` or `-p 8080` are the server's own.
const FORBIDDEN_LONG = [
  "--index",
  "--index-url",
  "--extra-index-url",
  "--default-index",
  "--find-links",
  "--no-index",
  "--index-strategy",
  "--trusted-host",
  "--keyring-provider",
  "--with",
  "--with-editable",
  "--with-requirements",
  "--python",
  "--directory",
  "--project",
  "--config-file",
  "--cache-dir",
  "--constraints",
  "--overrides",
];
const FORBIDDEN_SHORT = ["-i", "-f", "-w", "-p", "-c"];
const forbiddenOption = (token: string) => optionIn(token, FORBIDDEN_LONG, FORBIDDEN_SHORT);
const forbiddenInArgs = (token: string) => optionIn(token, FORBIDDEN_LONG, []);

// PEP 508 names; PEP 440 versions without epochs or local labels, as an index serves them.
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$/;
const VERSION =
  /^v?\d{1,9}(?:\.\d{1,9}){0,5}(?:[._-]?(?:a|b|c|rc|alpha|beta|pre|preview)\d{0,9})?(?:[._-]?(?:post|rev|r)\d{0,9})?(?:[._-]?dev\d{0,9})?$/i;
const COMMAND = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
// Every archive name pip would take for a local file (sdists, wheels, eggs), and scripts.
const FILE_LIKE = /\.(?:whl|zip|egg|py|tgz|tbz2?|txz|tlz|tar(?:\.(?:gz|bz2|xz|lz|lzma))?)$/i;

/** `name`, `name==1.2.3`, `name@1.2.3` or `name@latest` from the index. */
function requirement(token: string): { name: string; version: string | null } {
  if (/[:/]/.test(token) || /^[.~]/.test(token) || FILE_LIKE.test(token)) fail(UVX_TEXT.notFromIndex(token));
  const eq = token.indexOf("==");
  const at = token.indexOf("@");
  const cut = eq >= 0 ? eq : at;
  const name = cut >= 0 ? token.slice(0, cut) : token;
  const rawVersion = cut >= 0 ? token.slice(cut + (eq >= 0 ? 2 : 1)) : null;
  if (!NAME.test(name)) fail(UVX_TEXT.invalidPackage(name));
  if (rawVersion === null || (at >= 0 && eq < 0 && rawVersion === "latest")) return { name, version: null };
  if (!VERSION.test(rawVersion)) fail(UVX_TEXT.invalidVersion(rawVersion));
  return { name, version: rawVersion.replace(/^v/i, "") };
}

export function parseUvxCommand(input: string): UvxSpec {
  const tokens = lex(input, "uvx");
  if (tokens[0] !== "uvx") fail(UVX_TEXT.mustStartWithUvx);
  let i = 1;
  let from: string | null = null;
  for (; i < tokens.length && tokens[i]!.startsWith("-"); i++) {
    const token = tokens[i]!;
    const forbidden = forbiddenOption(token);
    if (forbidden) fail(UVX_TEXT.forbiddenOption(forbidden));
    if (from !== null) fail(UVX_TEXT.onlyFrom);
    if (token === "--from") from = tokens[++i] ?? fail(UVX_TEXT.missingPackage);
    else if (token.startsWith("--from=")) from = token.slice("--from=".length);
    else fail(UVX_TEXT.onlyFrom);
    if (from.startsWith("-")) {
      const f = forbiddenOption(from);
      fail(f ? UVX_TEXT.forbiddenOption(f) : UVX_TEXT.missingPackage);
    }
  }
  const next = tokens[i];
  if (from !== null) {
    if (next === undefined) fail(UVX_TEXT.missingCommand);
    const { name, version } = requirement(from);
    if (!COMMAND.test(next)) fail(UVX_TEXT.invalidCommand(next));
    return { package: name, version, command: next, args: checkArgs(tokens.slice(i + 1), "uvx", forbiddenInArgs) };
  }
  if (next === undefined) fail(UVX_TEXT.missingPackage);
  const { name, version } = requirement(next);
  return { package: name, version, command: null, args: checkArgs(tokens.slice(i + 1), "uvx", forbiddenInArgs) };
}
