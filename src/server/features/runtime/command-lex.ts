import { AppError } from "../../errors.js";

// The lexical rules every command a user pastes shares (npx, uvx, python -m): one line, bounded,
// no shell characters, a small alphabet, split on blanks. Nothing is ever handed to a shell; what
// falls outside is refused rather than escaped, so there is no quoting logic to get wrong.

export const MAX_COMMAND_LENGTH = 500;
export const MAX_ARGS = 50;

export const lexText = (what: string) =>
  ({
    empty: `The ${what} command is empty`,
    tooLong: `The ${what} command may be at most ${MAX_COMMAND_LENGTH} characters`,
    newline: `The ${what} command must be a single line`,
    shell: `The ${what} command may not contain shell characters such as ; | & $ or quotes`,
    unsupported: `The ${what} command may only contain letters, digits, spaces and the characters @ % + = : , . / _ ~ -`,
    tooManyArgs: `The ${what} command may have at most ${MAX_ARGS} arguments`,
    forbiddenOption: (option: string) => `The ${what} command may not use the ${option} option`,
  }) as const;

const SHELL_CHARS = /[;|&$`'"<>(){}*?!\\#[\]^]/;
/** One argument: what survives the character checks, with no blank. */
export const TOKEN = /^[A-Za-z0-9@%+=:,./_~-]+$/;

export function fail(message: string): never {
  throw new AppError("validation_failed", message);
}

/** The command's blank-separated tokens, or a refusal in `what`'s words. */
export function lex(input: string, what: string): string[] {
  const t = lexText(what);
  if (input.length > MAX_COMMAND_LENGTH) fail(t.tooLong);
  if (/[\r\n\0]/.test(input)) fail(t.newline);
  if (SHELL_CHARS.test(input)) fail(t.shell);
  if (/[^A-Za-z0-9@%+=:,./_~ \t-]/.test(input)) fail(t.unsupported);
  const trimmed = input.replace(/^[ \t]+|[ \t]+$/g, "");
  if (trimmed === "") fail(t.empty);
  return trimmed.split(/[ \t]+/);
}

/** The option of `long` or `short` that `token` is (short ones also take attached values: `-ifoo`). */
export function optionIn(token: string, long: readonly string[], short: readonly string[]): string | undefined {
  const s = short.find((o) => token.startsWith(o) && !token.startsWith("--"));
  if (s) return s;
  return long.find((o) => token === o || token.startsWith(`${o}=`));
}

/** The server's own arguments: bounded in number, each a plain token, none of the refused options. */
export function checkArgs(args: string[], what: string, forbidden: (token: string) => string | undefined): string[] {
  const t = lexText(what);
  if (args.length > MAX_ARGS) fail(t.tooManyArgs);
  for (const arg of args) {
    const f = forbidden(arg);
    if (f) fail(t.forbiddenOption(f));
    if (!TOKEN.test(arg)) fail(t.unsupported);
  }
  return args;
}
