// The directory's in-process index: which approved entries match a text search, in the orders the
// directory sorts by, and an entry's related servers. PostgreSQL stays the source of truth: every
// row here (its lexemes, its places in each order) comes from one query over mcp_servers
// (index-repo.ts), and the index is rebuilt after every catalogue write (catalog-index.ts).
// Why: at 100,000 entries, matching and ordering thousands of rows per search in PostgreSQL
// cost ~10 ms of database CPU a request (docs/decisions/020 on the catalogue index). Relevance
// and close spellings are computed here too, so a search asks PostgreSQL only for its page's rows.
import { buildPostings, type Postings } from "./search-postings.js";
import { paddedWords, SpellIndex, wordTrigrams } from "./search-spell.js";

/** One approved entry as the index sees it; the orders are 0-based places computed by PostgreSQL. */
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
  /** Place in: recent_users desc, lower(name), id (popular, and the relevance candidates). */
  pop: number;
  /** Place in: recent_users desc, id (related servers). */
  rel: number;
  /** Place in: lower(name), id. */
  az: number;
  /** Place in: created_at desc, id. */
  nw: number;
}

export interface Filters {
  category?: string;
  type?: string;
  works?: boolean;
}

/** A search's matches: ordinals in popular order, and which words each matched in its name, id or tags. */
export interface Matches {
  ordinals: number[];
  /** bit i of strong[o]: word i matched a lexeme of entry o's name, id or tags */
  strong: Uint8Array;
}

/** How much a word found in the name, id or tags weighs against one found only in the description (ts_rank's A and B). */
const STRONG = 1;
const WEAK = 0.4;

export class SearchIndex {
  readonly size: number;
  /** Entries by ordinal; the ordinal is the place in the popular order. */
  private readonly ids: string[];
  private readonly ordinalOf = new Map<string, number>();
  // Codes rather than strings and arrays per entry: 100,000 entries stay a few objects for the GC.
  private readonly codes = new Map<string, number>();
  private readonly category: Int32Array;
  private readonly type: Int32Array;
  /** 1: its last platform check worked */
  private readonly works: Uint8Array;
  /** recent_users at the time the index was built */
  private readonly users: Int32Array;
  private readonly names: string[];
  /** search_text of each entry */
  private readonly texts: string[];
  /** search_text's words padded as pg_trgm pads them (search-spell.ts), made when first ranked */
  private readonly padded: (string | undefined)[];
  /** The tags of entry o are tagCodes[tagStart[o]..tagStart[o + 1]). */
  private readonly tagStart: Int32Array;
  private readonly tagCodes: Int32Array;
  private readonly az: Int32Array;
  private readonly nw: Int32Array;
  /** Ordinals in related order (recent_users desc, id). */
  private readonly relOrder: Int32Array;
  /** Sorted lexemes and, for each, the ordinals holding it (search-postings.ts). */
  private readonly lists: Postings;
  private readonly spell: SpellIndex;

  constructor(rows: IndexRow[]) {
    const n = rows.length;
    this.size = n;
    this.ids = new Array<string>(n);
    this.category = new Int32Array(n);
    this.type = new Int32Array(n);
    this.works = new Uint8Array(n);
    this.users = new Int32Array(n);
    this.names = new Array<string>(n);
    this.texts = new Array<string>(n);
    this.padded = new Array<string | undefined>(n);
    this.tagStart = new Int32Array(n + 1);
    const tagCodes: number[] = [];
    this.az = new Int32Array(n);
    this.nw = new Int32Array(n);
    this.relOrder = new Int32Array(n);
    // pop, rel, az and nw are places 0..n-1 (row_number() - 1): placing is enough, no sort needed.
    const sorted = new Array<IndexRow>(n);
    for (const r of rows) sorted[r.pop] = r;
    sorted.forEach((r, o) => {
      this.ids[o] = r.id;
      this.ordinalOf.set(r.id, o);
      this.category[o] = this.code(r.category);
      this.type[o] = this.code(r.type);
      this.works[o] = r.works ? 1 : 0;
      this.users[o] = r.users;
      this.names[o] = r.name;
      this.texts[o] = r.text;
      this.tagStart[o] = tagCodes.length;
      for (const t of r.tags) tagCodes.push(this.code(t));
      this.az[o] = r.az;
      this.nw[o] = r.nw;
      this.relOrder[r.rel] = o;
    });
    this.tagStart[n] = tagCodes.length;
    this.tagCodes = Int32Array.from(tagCodes);
    this.lists = buildPostings(sorted);
    this.spell = new SpellIndex(this.lists.vocab);
  }

  /** A number for a category, type or tag (-1 for one no entry has). */
  private code(s: string): number {
    let c = this.codes.get(s);
    if (c === undefined) this.codes.set(s, (c = this.codes.size));
    return c;
  }

  private codeOf(s: string | undefined): number {
    return s === undefined ? -1 : (this.codes.get(s) ?? -1);
  }

  /** Index of the first lexeme >= w. */
  private lowerBound(w: string): number {
    let lo = 0;
    let hi = this.lists.vocab.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lists.vocab[mid]! < w) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The lexemes (vocab indexes) a query word stands for: `w:*` (every lexeme starting with w) or one exact lexeme. */
  private lexemesOf(w: string, prefix: boolean): number[] {
    const out: number[] = [];
    for (let i = this.lowerBound(w); i < this.lists.vocab.length; i++) {
      const l = this.lists.vocab[i]!;
      if (prefix ? !l.startsWith(w) : l !== w) break;
      out.push(i);
    }
    return out;
  }

  /** Close spellings of the query's words (3 letters or more) from the catalogue's vocabulary, for those that have some. */
  closeSpellings(words: string[]): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const w of words) {
      if (w.length < 3) continue;
      const close = this.spell.closeTo(w);
      if (close.length) out.set(w, close);
    }
    return out;
  }

  /**
   * Ordinals (ascending: popular order) of the entries matching every word as a prefix or as one
   * of its alternatives: what `search_doc @@ to_tsquery(prefixQuery(words, alternatives))` finds.
   */
  match(words: string[], alternatives: Map<string, string[]>, filters: Filters): Matches {
    const strong = new Uint8Array(this.size);
    const out: number[] = [];
    if (words.length === 0 || this.size === 0) return { ordinals: out, strong };
    const category = this.codeOf(filters.category);
    const type = this.codeOf(filters.type);
    if ((filters.category && category < 0) || (filters.type && type < 0)) return { ordinals: out, strong };
    // hits[o] = how many of the words so far entry o matched (each word counts once); an entry is
    // found when it matches the last word too, so no pass over every entry is needed.
    const hits = new Uint8Array(this.size);
    const found: number[] = [];
    const last = words.length - 1;
    words.forEach((w, i) => {
      const lexemes = this.lexemesOf(w, true);
      for (const alt of alternatives.get(w) ?? []) lexemes.push(...this.lexemesOf(alt, false));
      const bit = 1 << i;
      for (const l of lexemes) {
        for (let p = this.lists.postStart[l]!, end = this.lists.postStart[l + 1]!; p < end; p++) {
          const o = this.lists.postings[p]!;
          const h = hits[o]!;
          if (h === i) {
            hits[o] = i + 1;
            if (i === last) found.push(o);
          } else if (h !== i + 1) continue;
          if (this.lists.postStrong[p]) strong[o] = strong[o]! | bit;
        }
      }
    });
    // Popular order is ordinal order.
    for (const o of Int32Array.from(found).sort()) {
      if (filters.category && this.category[o] !== category) continue;
      if (filters.type && this.type[o] !== type) continue;
      if (filters.works && this.works[o] !== 1) continue;
      out.push(o);
    }
    return { ordinals: out, strong };
  }

  private usersOf(o: number, asOf: ReadonlyMap<string, number> | undefined): number {
    return asOf?.get(this.ids[o]!) ?? this.users[o]!;
  }

  /**
   * Ordinals in popular order (recent_users desc, lower(name), id); with `asOf`, by the popularity
   * its entries had when a cursor's listing began (search-sql.ts), so paging on keeps their places.
   */
  popular(ordinals: number[], asOf?: ReadonlyMap<string, number>): number[] {
    if (!asOf?.size) return ordinals;
    return [...ordinals].sort((a, b) => this.usersOf(b, asOf) - this.usersOf(a, asOf) || this.az[a]! - this.az[b]!);
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
    candidates.forEach((o, k) => {
      let strong = 0;
      for (let bits = m.strong[o]!; bits; bits &= bits - 1) strong++;
      const text = strong * STRONG + (words.length - strong) * WEAK;
      let held = 0;
      const padded = (this.padded[o] ??= paddedWords(this.texts[o]!));
      for (const g of grams) if (padded.includes(g)) held++;
      const exact = this.names[o] === q || this.ids[o] === q ? 1 : 0;
      score[k] = 4 * text + held / grams.length + exact;
      users[k] = this.usersOf(o, asOf);
    });
    const ids = this.ids;
    return Array.from(candidates.keys())
      .sort((a, b) => {
        const x = candidates[a]!;
        const y = candidates[b]!;
        return score[b]! - score[a]! || users[b]! - users[a]! || (ids[x]! < ids[y]! ? -1 : ids[x]! > ids[y]! ? 1 : 0);
      })
      .map((k) => candidates[k]!);
  }

  /** The ordinals in another order: by name (lower(name), id) or newest first (created_at desc, id). */
  sortBy(ordinals: number[], order: "name" | "newest"): number[] {
    const key = order === "name" ? this.az : this.nw;
    return [...ordinals].sort((a, b) => key[a]! - key[b]!);
  }

  idsOf(ordinals: number[]): string[] {
    return ordinals.map((o) => this.ids[o]!);
  }

  /**
   * Up to `limit` approved entries other than `id`: same category and a shared tag first, then the
   * same category, then a shared tag; each step in related order (recent_users desc, id).
   */
  related(id: string, category: string, tags: string[], limit: number): string[] {
    return this.relatedByCodes(id, this.codeOf(category), new Set(tags.map((t) => this.codeOf(t)).filter((c) => c >= 0)), limit);
  }

  /** related() for an approved entry the index holds, by its id alone; undefined for any other. */
  relatedOf(id: string, limit: number): string[] | undefined {
    const o = this.ordinalOf.get(id);
    if (o === undefined) return undefined;
    return this.relatedByCodes(id, this.category[o]!, new Set(this.tagCodes.subarray(this.tagStart[o], this.tagStart[o + 1])), limit);
  }

  private relatedByCodes(id: string, cat: number, wanted: Set<number>, limit: number): string[] {
    const shares = (o: number) => {
      for (let i = this.tagStart[o]!; i < this.tagStart[o + 1]!; i++) if (wanted.has(this.tagCodes[i]!)) return true;
      return false;
    };
    const steps = [(o: number) => this.category[o] === cat && shares(o), (o: number) => this.category[o] === cat, (o: number) => shares(o)];
    const out: string[] = [];
    const taken = new Set<string>([id]);
    for (const step of steps) {
      for (let i = 0; i < this.relOrder.length && out.length < limit; i++) {
        const o = this.relOrder[i]!;
        const oid = this.ids[o]!;
        if (!taken.has(oid) && step(o)) {
          out.push(oid);
          taken.add(oid);
        }
      }
      if (out.length >= limit) break;
    }
    return out;
  }
}
