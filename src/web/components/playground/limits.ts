import { formatCount } from "~/shared/format";
import { PLAYGROUND_TEXT as T } from "./text";

// Bounds on what a server's answer can make the page do (issue 18, Rules: a malicious server's
// output renders inert and bounded; a 10 MB result neither hangs the page nor the platform).
// Everything here is pure so the bounds are unit-tested.

export const LIMITS = {
  /** characters of one text shown */
  textChars: 100_000,
  /** nesting levels of JSON shown; deeper values read "…" */
  jsonDepth: 20,
  /** characters of pretty-printed JSON shown */
  jsonChars: 100_000,
  /** entries of one JSON array or object shown */
  jsonEntries: 1000,
  /** content items (or prompt messages, resource contents) rendered */
  items: 100,
  /** bytes of one image or audio clip rendered (decoded size) */
  mediaBytes: 8 * 1024 * 1024,
  /** server log lines kept while a call runs */
  logLines: 200,
  /** characters of a name, title or description from a server */
  label: 2000,
} as const;

export interface Clipped {
  text: string;
  /** the full length, in characters */
  total: number;
  clipped: boolean;
}

/** At most `max` characters of `s`, and whether that is all of it. */
export function clipText(s: string, max: number = LIMITS.textChars): Clipped {
  return s.length <= max ? { text: s, total: s.length, clipped: false } : { text: s.slice(0, max), total: s.length, clipped: true };
}

/** A server string (or anything it sent in its place) as a bounded label. */
export function label(v: unknown, max: number = LIMITS.label): string {
  if (typeof v !== "string") return "";
  return v.length <= max ? v : `${v.slice(0, max)}…`;
}

/** The decoded size of base64 text, without decoding it. */
export function base64Bytes(data: string): number {
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// Raster formats only: an SVG can carry script, and other types are not images a browser shows.
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"]);
const AUDIO_TYPE = /^audio\/[a-z0-9][a-z0-9.+-]{0,40}$/;

export type Media = { ok: true; src: string; bytes: number } | { ok: false; why: string; bytes: number };

function media(kind: "image" | "audio", mimeType: unknown, data: unknown, allowed: (mime: string) => boolean): Media {
  const mime = typeof mimeType === "string" ? mimeType.toLowerCase().trim() : "";
  const text = typeof data === "string" ? data : "";
  const bytes = base64Bytes(text);
  if (!allowed(mime)) return { ok: false, why: T.mediaType(kind, label(mime, 80)), bytes };
  if (bytes > LIMITS.mediaBytes) return { ok: false, why: T.mediaTooLarge(kind, bytes), bytes };
  if (!text || !BASE64.test(text)) return { ok: false, why: T.mediaNotBase64(kind), bytes };
  return { ok: true, src: `data:${mime};base64,${text}`, bytes };
}

/** A data: URL for an <img>, only for raster image types with valid base64 within the size limit. */
export function imageSource(mimeType: unknown, data: unknown): Media {
  return media("image", mimeType, data, (m) => IMAGE_TYPES.has(m));
}

/** A data: URL for an <audio>, only for audio/* with valid base64 within the size limit. */
export function audioSource(mimeType: unknown, data: unknown): Media {
  return media("audio", mimeType, data, (m) => AUDIO_TYPE.test(m));
}

/** The URI as a link target, only for http(s): never javascript:, data: or anything else. */
export function safeHref(uri: unknown): string | null {
  if (typeof uri !== "string" || uri.length > 4096) return null;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  return u.href;
}

/**
 * Pretty-printed JSON of `value`, bounded: nesting beyond `depth` reads "…", at most `entries`
 * entries of each array or object, strings within the remaining budget, and output stops at
 * `chars` characters. Never recurses deeper than `depth`, so a 10,000-deep value is as cheap as
 * a 20-deep one.
 */
export function boundedJson(value: unknown, opts: { depth?: number; chars?: number; entries?: number } = {}): Clipped {
  const maxDepth = opts.depth ?? LIMITS.jsonDepth;
  const max = opts.chars ?? LIMITS.jsonChars;
  const maxEntries = opts.entries ?? LIMITS.jsonEntries;
  const out: string[] = [];
  let size = 0;
  let full = true;
  const put = (s: string): boolean => {
    if (size >= max) {
      full = false;
      return false;
    }
    if (size + s.length > max) {
      out.push(s.slice(0, max - size));
      size = max;
      full = false;
      return false;
    }
    out.push(s);
    size += s.length;
    return true;
  };
  const seen = new Set<object>();
  const walk = (v: unknown, depth: number, indent: string): boolean => {
    if (v === null || typeof v === "boolean") return put(String(v));
    if (typeof v === "number") return put(Number.isFinite(v) ? String(v) : "null");
    if (typeof v === "string") {
      // Quote only what can still be shown: a 10 MB string costs its first `max` characters.
      const room = Math.max(0, max - size);
      const part = v.length > room ? v.slice(0, room) : v;
      if (part.length < v.length) full = false;
      return put(JSON.stringify(part));
    }
    if (typeof v !== "object") return put("null");
    if (depth >= maxDepth || seen.has(v)) {
      full = false;
      return put(Array.isArray(v) ? "[…]" : "{…}");
    }
    seen.add(v);
    const inner = `${indent}  `;
    const isArray = Array.isArray(v);
    const keys = isArray ? null : Object.keys(v);
    const count = isArray ? v.length : keys!.length;
    if (count === 0) {
      seen.delete(v);
      return put(isArray ? "[]" : "{}");
    }
    if (!put(isArray ? "[\n" : "{\n")) return false;
    const shown = Math.min(count, maxEntries);
    for (let i = 0; i < shown; i++) {
      if (!put(inner)) return false;
      if (isArray) {
        if (!walk(v[i], depth + 1, inner)) return false;
      } else {
        const k = keys![i]!;
        if (!put(`${JSON.stringify(k.length > 200 ? `${k.slice(0, 200)}…` : k)}: `)) return false;
        if (!walk((v as Record<string, unknown>)[k], depth + 1, inner)) return false;
      }
      if (!put(i < count - 1 ? ",\n" : "\n")) return false;
    }
    if (shown < count) {
      full = false;
      if (!put(`${inner}… ${formatCount(count - shown)} more\n`)) return false;
    }
    seen.delete(v);
    return put(`${indent}${isArray ? "]" : "}"}`);
  };
  walk(value, 0, "");
  const text = out.join("");
  return { text, total: text.length, clipped: !full };
}
