// The search index's entries as columns (search-index.ts): each entry has a slot, and each column
// one value per slot, as typed arrays where it can (100,000 entries stay a few objects for the GC).
// And the four orders the directory sorts by, computed here: by use, by name and newest first.

/** One approved entry as the index sees it (index-repo.ts reads them). */
export interface IndexRow {
  id: string;
  category: string;
  type: string;
  tags: string[];
  /** its last platform check worked ('Works here') */
  works: boolean;
  /** tsvector_to_array(search_doc): exactly what to_tsquery matches against. */
  lexemes: string[];
  /** The lexemes of its name, id and tags (search_doc's weight A); the rest are its description's. */
  strong: string[];
  /** recent_users: the popularity the popular order is by. */
  users: number;
  /** lower(name) */
  name: string;
  /** search_text: lower(name, id and tags), for how much of a query the entry's names hold. */
  text: string;
  /** created_at, in microseconds since 1970 */
  created: number;
}

/**
 * Text in code point order: what PostgreSQL's "C" collation does, which the directory's SQL
 * orders by too (search-repo.ts), so a listing sorts alike with or without words, on any locale.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 puts code points above U+FFFF (surrogates, 0xD800-0xDFFF) below U+E000-U+FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Numbers for categories, types and tags, shared by an index and the ones refreshed from it. */
export class Codes {
  private readonly map = new Map<string, number>();
  code(s: string): number {
    let c = this.map.get(s);
    if (c === undefined) this.map.set(s, (c = this.map.size));
    return c;
  }
  /** -1 for one no entry has had */
  codeOf(s: string | undefined): number {
    return s === undefined ? -1 : (this.map.get(s) ?? -1);
  }
}

interface ColumnData {
  ids: string[];
  category: Int32Array;
  type: Int32Array;
  works: Uint8Array;
  users: Int32Array;
  names: string[];
  texts: string[];
  created: Float64Array;
  tagStart: Int32Array;
  tagCodes: Int32Array;
}

export class Columns implements ColumnData {
  readonly n: number;
  readonly ids: string[];
  readonly category: Int32Array;
  readonly type: Int32Array;
  /** 1: its last platform check worked */
  readonly works: Uint8Array;
  readonly users: Int32Array;
  readonly names: string[];
  readonly texts: string[];
  readonly created: Float64Array;
  /** The tags of slot s are tagCodes[tagStart[s]..tagStart[s + 1]). */
  readonly tagStart: Int32Array;
  readonly tagCodes: Int32Array;

  private constructor(c: ColumnData) {
    this.n = c.ids.length;
    this.ids = c.ids;
    this.category = c.category;
    this.type = c.type;
    this.works = c.works;
    this.users = c.users;
    this.names = c.names;
    this.texts = c.texts;
    this.created = c.created;
    this.tagStart = c.tagStart;
    this.tagCodes = c.tagCodes;
  }

  static of(rows: IndexRow[], codes: Codes): Columns {
    const tagStart = new Int32Array(rows.length + 1);
    const tagCodes: number[] = [];
    rows.forEach((r, s) => {
      tagStart[s] = tagCodes.length;
      for (const t of r.tags) tagCodes.push(codes.code(t));
    });
    tagStart[rows.length] = tagCodes.length;
    return new Columns({
      ids: rows.map((r) => r.id),
      category: Int32Array.from(rows, (r) => codes.code(r.category)),
      type: Int32Array.from(rows, (r) => codes.code(r.type)),
      works: Uint8Array.from(rows, (r) => (r.works ? 1 : 0)),
      users: Int32Array.from(rows, (r) => r.users),
      names: rows.map((r) => r.name),
      texts: rows.map((r) => r.text),
      created: Float64Array.from(rows, (r) => r.created),
      tagStart,
      tagCodes: Int32Array.from(tagCodes),
    });
  }

  /** These slots, then `more`'s after them. */
  concat(more: Columns): Columns {
    const join = <T extends Int32Array | Uint8Array | Float64Array>(a: T, b: T, make: (n: number) => T): T => {
      const out = make(a.length + b.length);
      out.set(a);
      out.set(b, a.length);
      return out;
    };
    const i32 = (n: number) => new Int32Array(n);
    const tagStart = new Int32Array(this.n + more.n + 1);
    tagStart.set(this.tagStart.subarray(0, this.n));
    for (let s = 0; s <= more.n; s++) tagStart[this.n + s] = this.tagCodes.length + more.tagStart[s]!;
    return new Columns({
      ids: this.ids.concat(more.ids),
      category: join(this.category, more.category, i32),
      type: join(this.type, more.type, i32),
      works: join(this.works, more.works, (n) => new Uint8Array(n)),
      users: join(this.users, more.users, i32),
      names: this.names.concat(more.names),
      texts: this.texts.concat(more.texts),
      created: join(this.created, more.created, (n) => new Float64Array(n)),
      tagStart,
      tagCodes: join(this.tagCodes, more.tagCodes, i32),
    });
  }
}

/**
 * The directory's orders, each ending with the id so that every entry has one place: popular
 * (recent_users desc, lower(name), id), related (recent_users desc, id), name (lower(name), id)
 * and newest (created_at desc, id).
 */
export const ORDERS = ["pop", "rel", "az", "nw"] as const;
export type Order = (typeof ORDERS)[number];
export type Orders = Record<Order, Int32Array>;

export function comparators(c: Columns): Record<Order, (a: number, b: number) => number> {
  const id = (a: number, b: number) => compareText(c.ids[a]!, c.ids[b]!);
  const name = (a: number, b: number) => compareText(c.names[a]!, c.names[b]!) || id(a, b);
  return {
    pop: (a, b) => c.users[b]! - c.users[a]! || name(a, b),
    rel: (a, b) => c.users[b]! - c.users[a]! || id(a, b),
    az: name,
    nw: (a, b) => c.created[b]! - c.created[a]! || id(a, b),
  };
}

/** Every slot of `c` in each order. */
export function sortAll(c: Columns): Orders {
  const cmp = comparators(c);
  const slots = Array.from({ length: c.n }, (_, s) => s);
  return Object.fromEntries(ORDERS.map((o) => [o, Int32Array.from([...slots].sort(cmp[o]))])) as Orders;
}

/**
 * The live slots of `base` (each order of slots 0..base.n - 1 of `c`, less the `dead`) with the
 * slots from base.n on placed among them: a search in the base order for each, not a sort of all.
 */
export function mergeOrders(c: Columns, base: Orders, baseSize: number, dead: Uint8Array): Orders {
  const cmp = comparators(c);
  const added = Array.from({ length: c.n - baseSize }, (_, i) => baseSize + i);
  const out = {} as Orders;
  for (const o of ORDERS) {
    // A plain loop: a typed array's filter() took most of a refresh's time at 100,000 entries.
    const all = base[o];
    const kept = new Int32Array(all.length);
    let live = 0;
    for (let i = 0; i < all.length; i++) if (dead[all[i]!] === 0) kept[live++] = all[i]!;
    const more = [...added].sort(cmp[o]);
    const merged = new Int32Array(live + more.length);
    let from = 0;
    let at = 0;
    for (const s of more) {
      let lo = from;
      let hi = live;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cmp[o](kept[mid]!, s) < 0) lo = mid + 1;
        else hi = mid;
      }
      merged.set(kept.subarray(from, lo), at);
      at += lo - from;
      merged[at++] = s;
      from = lo;
    }
    merged.set(kept.subarray(from, live), at);
    out[o] = merged;
  }
  return out;
}

/**
 * Slots in an order, given its places (`rank`, over `n` slots) and its slots by place (`order`). Many slots
 * (a word in most descriptions matches nearly every entry) are marked and read off the order in
 * one pass; sorting 100,000 places took ~10 ms, during which that process answered nobody else.
 */
export function slotsInOrder(slots: ArrayLike<number>, order: Int32Array, rank: Int32Array, n: number): Int32Array {
  if (slots.length * 16 > order.length) {
    const marked = new Uint8Array(n);
    for (let k = 0; k < slots.length; k++) marked[slots[k]!] = 1;
    const out = new Int32Array(slots.length);
    let j = 0;
    for (let i = 0; i < order.length; i++) if (marked[order[i]!]) out[j++] = order[i]!;
    return out;
  }
  const places = Int32Array.from(slots, (s) => rank[s]!).sort();
  for (let k = 0; k < places.length; k++) places[k] = order[places[k]!]!;
  return places;
}
