// Most catalogue descriptions are one plain sentence: for those, markdown would make one paragraph
// of the same text, so the page renders it without running the parser (a server page spent ~6% of
// its CPU parsing them). Anything that could become markup goes through the parser as before.

/** Letters, digits and punctuation that no markdown or GFM construct starts from, on one line. */
const PLAIN = /^[\p{L}\p{N}][\p{L}\p{N} ,.;:'"?()/%+=-]*$/u;
/** What could still be markup within those characters: autolinks, an ordered list, a line break. */
const MAYBE_MARKUP = /www\.|:\/\/|^\p{N}+[.)]|\s{2}|\s$/u;

/** True when markdown would render `text` as exactly one paragraph holding `text`. */
export function isPlainText(text: string): boolean {
  return text.length <= 2_000 && PLAIN.test(text) && !MAYBE_MARKUP.test(text);
}
