import { createHash } from "node:crypto";
import { LISTINGS, LONE_SURROGATE, storableText, type DefinitionKind } from "~/shared/definitions.js";

// Pinned definitions (docs/gateway.md#pinned-definitions), the rules without the storage: what a
// definition is (the listed item without its _meta, in canonical JSON), and which listed items and
// calls a deployment's clients may see, given the pins (definitions-repo.ts keeps them).

/** At most this many definitions of one kind are pinned per deployment; more are withheld. */
export const MAX_DEFINITIONS = 1000;
/** A definition longer than this (canonical JSON) is no definition: withheld once its kind is pinned, never stored. */
export const MAX_DEFINITION_BYTES = 64 * 1024;
const MAX_NAME = 500;

export interface Definition {
  name: string;
  /** the item as listed, without _meta */
  def: Record<string, unknown>;
  /** SHA-256 of its canonical JSON */
  hash: string;
}

/** JSON with object keys in order, so the same definition always has the same text. Throws on input nested too deep to walk. */
export function canonical(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")}}`;
}

/** A listed item as a definition, or undefined when it is not one (no usable name, or too deep to read). */
export function definitionOf(item: unknown): Definition | undefined {
  if (!item || typeof item !== "object" || Array.isArray(item)) return undefined;
  const { _meta: _, ...def } = item as Record<string, unknown>;
  const name = def.name;
  // A NUL or a lone surrogate cannot be stored (PostgreSQL text): such a name could never be pinned, so it is no definition.
  if (typeof name !== "string" || name.length === 0 || name.length > MAX_NAME || name.includes("\u0000") || LONE_SURROGATE.test(name))
    return undefined;
  let text: string;
  try {
    text = canonical(def);
  } catch {
    return undefined; // nested deeper than the stack: never approvable, so withheld once pinned
  }
  if (text.length > MAX_DEFINITION_BYTES) return undefined;
  return { name, def, hash: createHash("sha256").update(text).digest("hex") };
}

/** The items of a listing result, or undefined when the result holds no list of that kind. */
export function listedItems(kind: DefinitionKind, result: unknown): unknown[] | undefined {
  const items = (result as Record<string, unknown> | undefined)?.[LISTINGS[kind].field];
  return Array.isArray(items) ? items : undefined;
}

/**
 * A JSON value PostgreSQL's jsonb can hold: no NUL, no lone surrogate (either makes the insert
 * fail, which a hostile server could use to keep its definitions from ever being pinned). Strings
 * get U+FFFD instead; hashes are of what was listed.
 */
export function jsonbSafe(v: unknown): unknown {
  if (typeof v === "string") return storableText(v);
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(jsonbSafe);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[storableText(k)] = jsonbSafe(x);
  return out;
}

export interface PinState {
  approvedHash: string | null;
  currentHash: string | null;
  rejectedHash: string | null;
}

const key = (kind: DefinitionKind, name: string) => `${kind}\u0000${name}`;

/** One deployment's pins as the gateway reads them: which listed items and which calls go through. */
export class DefinitionReview {
  static readonly NONE = new DefinitionReview(new Set(), false, new Map());

  constructor(
    private readonly pinnedKinds: ReadonlySet<DefinitionKind>,
    readonly warnOnly: boolean,
    private readonly pins: ReadonlyMap<string, PinState>,
  ) {}

  static of(pinnedKinds: Iterable<string>, warnOnly: boolean, rows: Iterable<PinState & { kind: string; name: string }>): DefinitionReview {
    const pins = new Map<string, PinState>();
    for (const r of rows)
      pins.set(key(r.kind as DefinitionKind, r.name), {
        approvedHash: r.approvedHash,
        currentHash: r.currentHash,
        rejectedHash: r.rejectedHash,
      });
    return new DefinitionReview(new Set(pinnedKinds as Iterable<DefinitionKind>), warnOnly, pins);
  }

  pinned(kind: DefinitionKind): boolean {
    return this.pinnedKinds.has(kind);
  }

  /** Whether clients see this listed definition (before the kind is pinned, everything: its first listing pins it). */
  exposes(kind: DefinitionKind, d: Definition | undefined): boolean {
    if (!this.pinned(kind)) return true;
    if (!d) return false;
    const pin = this.pins.get(key(kind, d.name));
    if (pin?.approvedHash === d.hash) return true;
    return this.warnOnly && pin?.rejectedHash !== d.hash;
  }

  /**
   * Why a call by name (tools/call, prompts/get) may not reach the server: "withheld" while its
   * current definition waits for review; "unknown" for a name never listed since the kind was
   * pinned (nothing approved it, and no client was shown it). Undefined: it goes through.
   */
  refusal(kind: DefinitionKind, name: string): "withheld" | "unknown" | undefined {
    if (!this.pinned(kind)) return undefined;
    const pin = this.pins.get(key(kind, name));
    if (!pin) return this.warnOnly ? undefined : "unknown";
    // Its last full listing left it out: the server answers for a name it does not have (one never approved stays unknown).
    if (pin.currentHash === null) return pin.approvedHash === null && !this.warnOnly ? "unknown" : undefined;
    if (pin.currentHash === pin.approvedHash) return undefined;
    if (this.warnOnly && pin.currentHash !== pin.rejectedHash) return undefined;
    return "withheld";
  }

  /** Whether this definition is already recorded as the item's current one (nothing to write). */
  recorded(kind: DefinitionKind, d: Definition): boolean {
    return this.pinned(kind) && this.pins.get(key(kind, d.name))?.currentHash === d.hash;
  }
}
