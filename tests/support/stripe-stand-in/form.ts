// The small pieces every part of the Stripe stand-in shares: decoding the SDK's bracket-keyed form
// bodies, reading their string values, ids and timestamps shaped like Stripe's, and its errors.
import crypto from "node:crypto";

export type Obj = Record<string, unknown>;

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const DAY = 24 * 60 * 60;
export const PERIOD_SECONDS: Record<string, number> = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };
const UNSAFE_KEYS = new Set(["__proto__", "prototype", "constructor"]);

export function randomId(prefix: string, length = 24): string {
  const bytes = crypto.randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

export const now = () => Math.floor(Date.now() / 1000);

export class StripeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly extra: Obj = {},
  ) {
    super(message);
  }
}

export function missing(kind: string, id: string): StripeHttpError {
  return new StripeHttpError(404, "invalid_request_error", `No such ${kind}: '${id}'`, { code: "resource_missing", param: "id" });
}

/** Decodes `a[0][b]=1&m[k]=v&e[]=x` into { a: [{ b: "1" }], m: { k: "v" }, e: ["x"] }. Values stay strings. */
export function decodeForm(text: string): Obj {
  const root: Obj = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(key);
    const segs = m ? [m[1]!, ...[...m[2]!.matchAll(/\[([^\]]*)\]/g)].map((g) => g[1]!)] : [key];
    if (segs.some((s) => UNSAFE_KEYS.has(s))) continue;
    let cur: Obj | unknown[] = root;
    for (let i = 0; i < segs.length; i++) {
      const container = cur as Record<string, unknown>;
      const seg = segs[i] === "" && Array.isArray(cur) ? String(cur.length) : segs[i]!;
      if (i === segs.length - 1) {
        container[seg] = value;
        break;
      }
      let next = container[seg];
      if (next === null || typeof next !== "object") {
        next = /^\d*$/.test(segs[i + 1]!) ? [] : {};
        container[seg] = next;
      }
      cur = next as Obj | unknown[];
    }
  }
  return root;
}

export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
export const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
export const num = (v: unknown): number | null =>
  typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : null;

/** Stripe's metadata update rules: `metadata=""` clears all, `metadata[k]=""` removes k. */
export function mergeMetadata(current: unknown, update: unknown): Obj {
  if (update === "") return {};
  const out: Obj = { ...obj(current) };
  for (const [k, v] of Object.entries(obj(update))) {
    if (v === "") delete out[k];
    else out[k] = v;
  }
  return out;
}
