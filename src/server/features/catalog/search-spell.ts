// Trigrams as PostgreSQL's pg_trgm makes them, for the in-process index (search-index.ts): close
// spellings of a query word from the catalogue's vocabulary ('githb' -> github, as `word % w`
// did over the search_words table), and how much of a query an entry's name, id and tags hold.

/** pg_trgm's default similarity_threshold: what `a % b` accepts. */
export const SIMILARITY_THRESHOLD = 0.3;
/** Close spellings taken per query word (the closest first). */
const ALTERNATIVES = 3;

/** A word's trigrams as pg_trgm makes them: padded with two blanks before and one after, each once. */
export function wordTrigrams(word: string, into = new Set<string>()): Set<string> {
  const chars = Array.from(`  ${word} `);
  for (let i = 0; i + 3 <= chars.length; i++) into.add(chars[i]! + chars[i + 1]! + chars[i + 2]!);
  return into;
}

/** pg_trgm's similarity of two words: shared trigrams over all their distinct trigrams. */
export function similarity(a: string, b: string): number {
  const ta = wordTrigrams(a);
  const tb = wordTrigrams(b);
  let common = 0;
  for (const t of ta) if (tb.has(t)) common++;
  return common / (ta.size + tb.size - common);
}

/**
 * A text's words each padded as pg_trgm pads them, one after another: a query trigram occurs in
 * it exactly when one of the text's words has it (no trigram of a word spans two words).
 */
export function paddedWords(text: string): string {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .map((w) => `  ${w} `)
    .join("");
}

/** The vocabulary a misspelt word is corrected from: plain words of 3 to 40 letters, no digits (as search_words held). */
export function spellable(word: string): boolean {
  const n = Array.from(word).length;
  return n >= 3 && n <= 40 && /^\p{L}+$/u.test(word);
}

/** The catalogue's spellable words by trigram, so a correction looks only at words sharing one. */
export class SpellIndex {
  private readonly words: string[];
  private readonly sizes: Int32Array;
  private readonly byTrigram = new Map<string, Int32Array>();

  constructor(vocabulary: Iterable<string>) {
    this.words = [...vocabulary].filter(spellable);
    this.sizes = new Int32Array(this.words.length);
    const lists = new Map<string, number[]>();
    this.words.forEach((w, i) => {
      const grams = wordTrigrams(w);
      this.sizes[i] = grams.size;
      for (const g of grams) {
        const list = lists.get(g);
        if (list) list.push(i);
        else lists.set(g, [i]);
      }
    });
    for (const [g, list] of lists) this.byTrigram.set(g, Int32Array.from(list));
  }

  /**
   * The words of the vocabulary at least SIMILARITY_THRESHOLD similar to `word` (not the word
   * itself), the most similar first and then alphabetically: what
   * `select word from search_words where word % w and word <> w order by word <-> w, word` gave.
   */
  closeTo(word: string): { word: string; sim: number }[] {
    const grams = wordTrigrams(word);
    const common = new Map<number, number>();
    for (const g of grams) for (const i of this.byTrigram.get(g) ?? []) common.set(i, (common.get(i) ?? 0) + 1);
    const found: { word: string; sim: number }[] = [];
    for (const [i, c] of common) {
      const sim = c / (grams.size + this.sizes[i]! - c);
      if (sim >= SIMILARITY_THRESHOLD && this.words[i] !== word) found.push({ word: this.words[i]!, sim });
    }
    return found.sort(closerFirst);
  }
}

const closerFirst = (a: { word: string; sim: number }, b: { word: string; sim: number }) =>
  b.sim - a.sim || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0);

/**
 * Up to three close spellings of `word` from several vocabularies (an index's and its recent
 * changes'), each once, leaving out words `held` says no entry holds any more: what
 * `... order by word <-> w, word limit 3` gave over the catalogue's current words.
 */
export function closestOf(word: string, vocabularies: SpellIndex[], held: (w: string) => boolean): string[] {
  const found = vocabularies.flatMap((v) => v.closeTo(word)).sort(closerFirst);
  const out: string[] = [];
  for (const f of found) {
    if (out.length === ALTERNATIVES) break;
    if (!out.includes(f.word) && held(f.word)) out.push(f.word);
  }
  return out;
}
