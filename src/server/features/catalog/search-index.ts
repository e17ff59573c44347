// The directory's in-process index: which approved entries match a text search, in the orders the
// directory sorts by, and an entry's related servers. PostgreSQL stays the source of truth: every
// row here (its lexemes, its places in each order) comes from one query over mcp_servers
// (index-repo.ts), and the index is rebuilt after every catalogue write (catalog-index.ts).
// Why: at 100,000 entries, matching and ordering thousands of rows per search in PostgreSQL
// cost ~10 ms of database CPU a request (docs/decisions/ on the catalogue index).

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
  /** The tags of entry o are tagCodes[tagStart[o]..tagStart[o + 1]). */
  private readonly tagStart: Int32Array;
  private readonly tagCodes: Int32Array;
  private readonly az: Int32Array;
  private readonly nw: Int32Array;
  /** Ordinals in related order (recent_users desc, id). */
  private readonly relOrder: Int32Array;
  /** Sorted lexemes and, for each, the ordinals holding it (ascending). */
  private readonly vocab: string[];
  /** Lexeme i's ordinals are postings[postStart[i]..postStart[i + 1]): one buffer, not one per lexeme. */
  private readonly postStart: Int32Array;
  private readonly postings: Int32Array;

  constructor(rows: IndexRow[]) {
    const n = rows.length;
    this.size = n;
    this.ids = new Array<string>(n);
    this.category = new Int32Array(n);
    this.type = new Int32Array(n);
    this.works = new Uint8Array(n);
    this.tagStart = new Int32Array(n + 1);
    const tagCodes: number[] = [];
    this.az = new Int32Array(n);
    this.nw = new Int32Array(n);
    this.relOrder = new Int32Array(n);
    const byLexeme = new Map<string, number[]>();
    const sorted = [...rows].sort((a, b) => a.pop - b.pop);
    sorted.forEach((r, o) => {
      this.ids[o] = r.id;
      this.ordinalOf.set(r.id, o);
      this.category[o] = this.code(r.category);
      this.type[o] = this.code(r.type);
      this.works[o] = r.works ? 1 : 0;
      this.tagStart[o] = tagCodes.length;
      for (const t of r.tags) tagCodes.push(this.code(t));
      this.az[o] = r.az;
      this.nw[o] = r.nw;
      for (const l of r.lexemes) {
        const list = byLexeme.get(l);
        if (list) list.push(o);
        else byLexeme.set(l, [o]);
      }
    });
    this.tagStart[n] = tagCodes.length;
    this.tagCodes = Int32Array.from(tagCodes);
    const rel = Array.from({ length: n }, (_, o) => o).sort((a, b) => sorted[a]!.rel - sorted[b]!.rel);
    this.relOrder.set(rel);
    // Plain code-unit order: a prefix's lexemes are one run of it, whatever the database's collation.
    this.vocab = [...byLexeme.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    this.postStart = new Int32Array(this.vocab.length + 1);
    let total = 0;
    this.vocab.forEach((l, i) => {
      this.postStart[i] = total;
      total += byLexeme.get(l)!.length;
    });
    this.postStart[this.vocab.length] = total;
    this.postings = new Int32Array(total);
    this.vocab.forEach((l, i) => this.postings.set(byLexeme.get(l)!, this.postStart[i]));
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
    let hi = this.vocab.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.vocab[mid]! < w) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The postings a query word stands for: `w:*` (every lexeme starting with w) or one exact lexeme. */
  private postingsOf(w: string, prefix: boolean): Int32Array[] {
    const out: Int32Array[] = [];
    for (let i = this.lowerBound(w); i < this.vocab.length; i++) {
      const l = this.vocab[i]!;
      if (prefix ? !l.startsWith(w) : l !== w) break;
      out.push(this.postings.subarray(this.postStart[i], this.postStart[i + 1]));
    }
    return out;
  }

  /**
   * Ordinals (ascending: popular order) of the entries matching every word as a prefix or as one
   * of its alternatives: what `search_doc @@ to_tsquery(prefixQuery(words, alternatives))` finds.
   */
  match(words: string[], alternatives: Map<string, string[]>, filters: Filters): number[] {
    if (words.length === 0 || this.size === 0) return [];
    // hits[o] = how many of the words so far entry o matched (each word counts once).
    const hits = new Uint8Array(this.size);
    words.forEach((w, i) => {
      const lists = this.postingsOf(w, true);
      for (const alt of alternatives.get(w) ?? []) lists.push(...this.postingsOf(alt, false));
      for (const list of lists) for (const o of list) if (hits[o] === i) hits[o] = i + 1;
    });
    const out: number[] = [];
    const all = words.length;
    const category = this.codeOf(filters.category);
    const type = this.codeOf(filters.type);
    if ((filters.category && category < 0) || (filters.type && type < 0)) return out;
    for (let o = 0; o < this.size; o++) {
      if (hits[o] !== all) continue;
      if (filters.category && this.category[o] !== category) continue;
      if (filters.type && this.type[o] !== type) continue;
      if (filters.works && this.works[o] !== 1) continue;
      out.push(o);
    }
    return out;
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
