// What the platform does to a hosted server's output lines before it keeps or parses them: how
// deep their JSON nests (checked before parsing), and the masking and escaping of log lines.

/** Whether JSON text nests deeper than `limit` (brackets inside strings do not count); linear, and stops at the limit. */
export function nestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Control characters (ANSI escapes, NULs, bells) shown as \xNN so logs render inert. */
export function escapeControl(s: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return s.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

export function maskSecrets(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of secrets) if (s.length >= 3) out = out.split(s).join("••••••");
  return out;
}
