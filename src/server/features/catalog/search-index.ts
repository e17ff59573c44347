// The directory's in-process index: which approved entries match a text search, in the orders the
// directory sorts by, and an entry's related servers. PostgreSQL stays the source of truth: every
// entry here comes from mcp_servers (index-repo.ts). A process loads them all once, then after each
// catalogue write reads only the entries changed since (catalog-index.ts): a refreshed index keeps
// its base's lists and adds small ones for the changed entries, whose old slots it no longer counts.
// Why: at 100,000 entries, matching and ordering thousands of rows per search in PostgreSQL
// cost ~10 ms of database CPU a request (docs/decisions/020 on the catalogue index). Relevance
// and close spellings are computed here too, so a search asks PostgreSQL only for its page's rows.
import { Codes, Columns, compareText, mergeOrders, slotsInOrder, sortAll, type IndexRow, type Orders } from "./search-columns.js";
import { buildPostings, lexemesOf, type Postings } from "./search-postings.js";
import { closestOf, paddedWords, SpellIndex, wordTrigrams } from "./search-spell.js";

export type { IndexRow } from "./search-columns.js";

export interface Filters {
  category?: string;
  type?: string;
  works?: boolean;
}

/** A search's matches: ordinals in popular order, and which words each matched in its name, id or tags. */
export interface Matches {
  ordinals: Int32Array;
  /** bit i of strong[o]: word i matched a lexeme of entry o's name, id or tags */
  strong: Uint8Array;
}

/** How much a word found in the name, id or tags weighs against one found only in the description (ts_rank's A and B). */
const STRONG = 1;
const WEAK = 0.4;

/** What a full load builds, shared by every index refreshed from it. */
interface Base {
  cols: Columns;
  lists: Postings;
  spell: SpellIndex;
  orders: Orders;
  slotOf: Map<string, number>;
  codes: Codes;
  /** search_text's words padded as pg_trgm pads them (search-spell.ts), made when first ranked */
  padded: (string | undefined)[];
}

/**
 * Entries have slots: a full load's are 0..n-1; the entries changed since come after them, and the
 * old slots of changed entries are dead. Matches ("ordinals") are slots; the orders are places.
 */
export class SearchIndex {
  /** How many entries it holds. */
  readonly size: number;
  /** Entries changed (or gone: null) since its base was loaded. */
  readonly changes: ReadonlyMap<string, IndexRow | null>;
  private readonly base: Base;
  private readonly cols: Columns;
  /** Postings of the base, then of the changed entries. */
  private readonly lists: Postings[];
  private readonly spells: SpellIndex[];
  private readonly dead: Uint8Array;
  private readonly addedSlotOf = new Map<string, number>();
  private readonly addedPadded: (string | undefined)[] = [];
  /** Place of each slot in the popular, name and newest orders. */
  private readonly popRank: Int32Array;
  private readonly az: Int32Array;
  private readonly nw: Int32Array;
  /** Live slots in popular, related (recent_users desc, id), name and newest order. */
  private readonly popOrder: Int32Array;
  private readonly relOrder: Int32Array;
  private readonly azOrder: Int32Array;
  private readonly nwOrder: Int32Array;

  /** An index of `rows`; or `base`'s with `changes` applied (withChanges). */
  constructor(rows: IndexRow[], from?: { base: Base; changes: ReadonlyMap<string, IndexRow | null> }) {
    let base = from?.base;
    if (!base) {
      const codes = new Codes();
      const cols = Columns.of(rows, codes);
      const lists = buildPostings(rows);
      const slotOf = new Map<string, number>();
      rows.forEach((r, s) => slotOf.set(r.id, s));
      base = { cols, lists, spell: new SpellIndex(lists.vocab), orders: sortAll(cols), slotOf, codes, padded: [] };
    }
    this.base = base;
    this.changes = from?.changes ?? new Map();
    const added = [...this.changes.values()].filter((r): r is IndexRow => r !== null);
    this.cols = added.length ? base.cols.concat(Columns.of(added, base.codes)) : base.cols;
    this.dead = new Uint8Array(this.cols.n);
    for (const id of this.changes.keys()) {
      const s = base.slotOf.get(id);
      if (s !== undefined) this.dead[s] = 1;
    }
    added.forEach((r, i) => this.addedSlotOf.set(r.id, base.cols.n + i));
    const orders = this.changes.size ? mergeOrders(this.cols, base.orders, base.cols.n, this.dead) : base.orders;
    this.lists = [base.lists];
    this.spells = [base.spell];
    if (added.length) {
      const lists = buildPostings(added, base.cols.n);
      this.lists.push(lists);
      this.spells.push(new SpellIndex(lists.vocab));
    }
    this.size = orders.pop.length;
    const rank = (order: Int32Array) => {
      const r = new Int32Array(this.cols.n);
      for (let i = 0; i < order.length; i++) r[order[i]!] = i;
      return r;
    };
    this.popOrder = orders.pop;
    this.popRank = rank(orders.pop);
    this.az = rank(orders.az);
    this.nw = rank(orders.nw);
    this.relOrder = orders.rel;
    this.azOrder = orders.az;
    this.nwOrder = orders.nw;
  }

  /** This index with entries changed since: their rows, or null for those no longer listed. */
  withChanges(changed: ReadonlyMap<string, IndexRow | null>): SearchIndex {
    if (changed.size === 0) return this;
    const changes = new Map(this.changes);
    for (const [id, row] of changed) changes.set(id, row);
    return new SearchIndex([], { base: this.base, changes });
  }

  private slotOf(id: string): number | undefined {
    const s = this.addedSlotOf.get(id) ?? this.base.slotOf.get(id);
    return s === undefined || this.dead[s] ? undefined : s;
  }

  private paddedOf(s: number): string {
    const n = this.base.cols.n;
    if (s < n) return (this.base.padded[s] ??= paddedWords(this.cols.texts[s]!));
    return (this.addedPadded[s - n] ??= paddedWords(this.cols.texts[s]!));
  }

  /** Some entry it holds has this exact lexeme. */
  private holds(word: string): boolean {
    return this.lists.some((lists) =>
      lexemesOf(lists, word, false).some((l) => {
        for (let p = lists.postStart[l]!; p < lists.postStart[l + 1]!; p++) if (!this.dead[lists.postings[p]!]) return true;
        return false;
      }),
    );
  }

  /** Close spellings of the query's words (3 letters or more) from the catalogue's vocabulary, for those that have some. */
  closeSpellings(words: string[]): Map<string, string[]> {
    const out = new Map<string, string[]>();
    const held = this.changes.size ? (w: string) => this.holds(w) : () => true;
    for (const w of words) {
      if (w.length < 3) continue;
      const close = closestOf(w, this.spells, held);
      if (close.length) out.set(w, close);
    }
    return out;
  }

  /**
   * Slots, in popular order, of the entries matching every word as a prefix or as one of its
   * alternatives: what `search_doc @@ to_tsquery(prefixQuery(words, alternatives))` finds.
   */
  match(words: string[], alternatives: Map<string, string[]>, filters: Filters): Matches {
    const n = this.cols.n;
    const strong = new Uint8Array(n);
    const out = new Int32Array(0);
    if (words.length === 0 || this.size === 0) return { ordinals: out, strong };
    const category = this.base.codes.codeOf(filters.category);
    const type = this.base.codes.codeOf(filters.type);
    if ((filters.category && category < 0) || (filters.type && type < 0)) return { ordinals: out, strong };
    // hits[s] = how many of the words so far entry s matched (each word counts once); an entry is
    // found when it matches the last word too, so no pass over every entry is needed.
    const hits = new Uint8Array(n);
    // Typed and preallocated: a common word matches nearly every entry (100,000 pushes cost ms).
    const found = new Int32Array(n);
    let nFound = 0;
    const last = words.length - 1;
    words.forEach((w, i) => {
      const bit = 1 << i;
      for (const lists of this.lists) {
        const lexemes = lexemesOf(lists, w, true);
        for (const alt of alternatives.get(w) ?? []) lexemes.push(...lexemesOf(lists, alt, false));
        for (const l of lexemes) {
          for (let p = lists.postStart[l]!, end = lists.postStart[l + 1]!; p < end; p++) {
            const s = lists.postings[p]!;
            const h = hits[s]!;
            if (h === i) {
              hits[s] = i + 1;
              if (i === last) found[nFound++] = s;
            } else if (h !== i + 1) continue;
            if (lists.postStrong[p]) strong[s] = strong[s]! | bit;
          }
        }
      }
    });
    const c = this.cols;
    let kept = 0;
    for (let k = 0; k < nFound; k++) {
      const s = found[k]!;
      if (this.dead[s]) continue;
      if (filters.category && c.category[s] !== category) continue;
      if (filters.type && c.type[s] !== type) continue;
      if (filters.works && c.works[s] !== 1) continue;
      found[kept++] = s;
    }
    return { ordinals: slotsInOrder(found.subarray(0, kept), this.popOrder, this.popRank, n), strong };
  }

  private usersOf(o: number, asOf: ReadonlyMap<string, number> | undefined): number {
    return asOf?.get(this.cols.ids[o]!) ?? this.cols.users[o]!;
  }

  /**
   * Matches in popular order (recent_users desc, lower(name), id); with `asOf`, by the popularity
   * its entries had when a cursor's listing began (search-sql.ts), so paging on keeps their places.
   */
  popular(ordinals: Int32Array, asOf?: ReadonlyMap<string, number>): Int32Array {
    if (!asOf?.size) return ordinals;
    return Int32Array.from(ordinals).sort((a, b) => this.usersOf(b, asOf) - this.usersOf(a, asOf) || this.az[a]! - this.az[b]!);
  }

  /**
   * The `window` most used matches, best match first: each word weighs more found in the name, id
   * or tags than only in the description; then how many of the query's trigrams the name, id and
   * tags hold; an entry named exactly as asked comes first. Ties by popularity, then id.
   */
  relevance(m: Matches, words: string[], q: string, window: number, asOf?: ReadonlyMap<string, number>): number[] {
    const candidates = this.popular(m.ordinals, asOf).slice(0, window);
    const grams = [...words.reduce((set, w) => wordTrigrams(w, set), new Set<string>())];
    const score = new Float64Array(candidates.length);
    const users = new Float64Array(candidates.length);
    const ids = this.cols.ids;
    candidates.forEach((o, k) => {
      let strong = 0;
      for (let bits = m.strong[o]!; bits; bits &= bits - 1) strong++;
      const text = strong * STRONG + (words.length - strong) * WEAK;
      let held = 0;
      const padded = this.paddedOf(o);
      for (const g of grams) if (padded.includes(g)) held++;
      const exact = this.cols.names[o] === q || ids[o] === q ? 1 : 0;
      score[k] = 4 * text + held / grams.length + exact;
      users[k] = this.usersOf(o, asOf);
    });
    return Array.from(candidates.keys())
      .sort((a, b) => {
        const x = candidates[a]!;
        const y = candidates[b]!;
        return score[b]! - score[a]! || users[b]! - users[a]! || compareText(ids[x]!, ids[y]!);
      })
      .map((k) => candidates[k]!);
  }

  /** The matches in another order: by name (lower(name), id) or newest first (created_at desc, id). */
  sortBy(ordinals: ArrayLike<number>, order: "name" | "newest"): Int32Array {
    return order === "name"
      ? slotsInOrder(ordinals, this.azOrder, this.az, this.cols.n)
      : slotsInOrder(ordinals, this.nwOrder, this.nw, this.cols.n);
  }

  /** Where the entry `id` is in `ordered` (-1: not there): a cursor's page goes on after it. */
  positionOf(ordered: ArrayLike<number>, id: string): number {
    const ids = this.cols.ids;
    for (let k = 0; k < ordered.length; k++) if (ids[ordered[k]!] === id) return k;
    return -1;
  }

  idsOf(ordinals: ArrayLike<number>): string[] {
    return Array.from(ordinals, (o) => this.cols.ids[o]!);
  }

  /**
   * Up to `limit` approved entries other than `id`: same category and a shared tag first, then the
   * same category, then a shared tag; each step in related order (recent_users desc, id).
   */
  related(id: string, category: string, tags: string[], limit: number): string[] {
    const codes = this.base.codes;
    return this.relatedByCodes(id, codes.codeOf(category), new Set(tags.map((t) => codes.codeOf(t)).filter((c) => c >= 0)), limit);
  }

  /** related() for an approved entry the index holds, by its id alone; undefined for any other. */
  relatedOf(id: string, limit: number): string[] | undefined {
    const s = this.slotOf(id);
    if (s === undefined) return undefined;
    const c = this.cols;
    return this.relatedByCodes(id, c.category[s]!, new Set(c.tagCodes.subarray(c.tagStart[s], c.tagStart[s + 1])), limit);
  }

  private relatedByCodes(id: string, cat: number, wanted: Set<number>, limit: number): string[] {
    const c = this.cols;
    const shares = (s: number) => {
      for (let i = c.tagStart[s]!; i < c.tagStart[s + 1]!; i++) if (wanted.has(c.tagCodes[i]!)) return true;
      return false;
    };
    const steps = [(s: number) => c.category[s] === cat && shares(s), (s: number) => c.category[s] === cat, (s: number) => shares(s)];
    const out: string[] = [];
    const taken = new Set<string>([id]);
    for (const step of steps) {
      for (let i = 0; i < this.relOrder.length && out.length < limit; i++) {
        const s = this.relOrder[i]!;
        const sid = c.ids[s]!;
        if (!taken.has(sid) && step(s)) {
          out.push(sid);
          taken.add(sid);
        }
      }
      if (out.length >= limit) break;
    }
    return out;
  }
}
