// The index's inverted lists (search-index.ts): for each lexeme of the catalogue, the entries
// holding it in ascending slot order, and whether it is among each one's strong
// lexemes (its name, id and tags). Built without a list or set per lexeme or entry: at 100,000
// entries those made the build several times slower, mostly in the GC.

export interface Postings {
  /** every lexeme, in plain code-unit order: a prefix's lexemes are one run of it, whatever the database's collation */
  vocab: string[];
  /** lexeme i's entries are postings[postStart[i]..postStart[i + 1]) */
  postStart: Int32Array;
  postings: Int32Array;
  /** 1 where the posting's lexeme is in that entry's name, id or tags */
  postStrong: Uint8Array;
}

/** The postings of entries given in slot order, the first at slot `offset`. */
export function buildPostings(entries: { lexemes: string[]; strong: string[] }[], offset = 0): Postings {
  // Lexemes get numbers as they are met; each posting is (lexeme number, slot * 2 + strong).
  const lexId = new Map<string, number>();
  const lexWords: string[] = [];
  /** stamp[lexeme] = slot + 1 while that entry's strong lexemes are marked */
  const stamp: number[] = [];
  const pLex: number[] = [];
  const pPost: number[] = [];
  entries.forEach((r, o) => {
    const first = pLex.length;
    for (const l of r.lexemes) {
      let id = lexId.get(l);
      if (id === undefined) {
        id = lexWords.length;
        lexId.set(l, id);
        lexWords.push(l);
      }
      pLex.push(id);
    }
    for (const l of r.strong) {
      const id = lexId.get(l);
      if (id !== undefined) stamp[id] = o + 1;
    }
    for (let k = first; k < pLex.length; k++) pPost.push(o * 2 + (stamp[pLex[k]!] === o + 1 ? 1 : 0));
  });
  const vocab = [...lexWords].sort();
  const rank = new Int32Array(lexWords.length);
  vocab.forEach((l, i) => (rank[lexId.get(l)!] = i));
  // A counting sort of the postings by lexeme: within one, slots stay ascending.
  const postStart = new Int32Array(vocab.length + 1);
  for (const id of pLex) postStart[rank[id]! + 1] = postStart[rank[id]! + 1]! + 1;
  for (let i = 0; i < vocab.length; i++) postStart[i + 1] = postStart[i + 1]! + postStart[i]!;
  const postings = new Int32Array(pLex.length);
  const postStrong = new Uint8Array(pLex.length);
  const at = postStart.slice(0, vocab.length);
  for (let k = 0; k < pLex.length; k++) {
    const slot = at[rank[pLex[k]!]!]!++;
    postings[slot] = offset + (pPost[k]! >> 1);
    postStrong[slot] = pPost[k]! & 1;
  }
  return { vocab, postStart, postings, postStrong };
}

/** Index in `lists` of the first lexeme >= w. */
function lowerBound(lists: Postings, w: string): number {
  let lo = 0;
  let hi = lists.vocab.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (lists.vocab[mid]! < w) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The lexemes (vocab indexes in `lists`) a query word stands for: `w:*` (every lexeme starting with w) or one exact lexeme. */
export function lexemesOf(lists: Postings, w: string, prefix: boolean): number[] {
  const out: number[] = [];
  for (let i = lowerBound(lists, w); i < lists.vocab.length; i++) {
    const l = lists.vocab[i]!;
    if (prefix ? !l.startsWith(w) : l !== w) break;
    out.push(i);
  }
  return out;
}
