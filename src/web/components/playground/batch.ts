// A server may send thousands of progress or log notifications a second. Rendering each one
// would make the page sluggish, so they are collected and handed to React at most once per
// animation frame (or 100 ms, when the tab is hidden and frames pause). Between two hand-overs
// only the last `keep` items are held, so a flood costs bounded memory too.

export interface Batcher<T> {
  push: (item: T) => void;
  /** drops what is waiting, without handing it over */
  clear: () => void;
}

/** Runs `fn` once, soon; returns a function that stops it. */
export type Schedule = (fn: () => void) => () => void;

export const nextFrame: Schedule = (fn) => {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    if (frame !== undefined) cancelAnimationFrame(frame);
    fn();
  };
  const timer = setTimeout(once, 100);
  const frame = typeof requestAnimationFrame === "function" ? requestAnimationFrame(once) : undefined;
  return () => {
    done = true;
    clearTimeout(timer);
    if (frame !== undefined) cancelAnimationFrame(frame);
  };
};

export function batcher<T>(flush: (items: T[]) => void, keep: number, schedule: Schedule = nextFrame): Batcher<T> {
  let waiting: T[] = [];
  let stop: (() => void) | null = null;
  const handOver = () => {
    stop = null;
    const items = waiting;
    waiting = [];
    if (items.length) flush(items.length > keep ? items.slice(-keep) : items);
  };
  return {
    push(item) {
      waiting.push(item);
      // Trim in steps, not on every push: a flood stays linear in its size.
      if (waiting.length >= keep * 2) waiting = waiting.slice(-keep);
      if (!stop) stop = schedule(handOver);
    },
    clear() {
      stop?.();
      stop = null;
      waiting = [];
    },
  };
}

/** `list` with `more` appended, keeping the last `cap` entries. */
export function appendCapped<T>(list: T[], more: T[], cap: number): T[] {
  if (more.length >= cap) return more.slice(-cap);
  const all = list.length + more.length > cap ? list.slice(list.length + more.length - cap) : list;
  return [...all, ...more];
}
