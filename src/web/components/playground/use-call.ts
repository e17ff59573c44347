import { useCallback, useEffect, useRef, useState } from "react";
import { batcher } from "./batch";
import { errorText } from "./result-model";
import { PLAYGROUND_TEXT } from "./text";

// One request at a time from a tab of the playground: its progress while it runs, then its
// outcome and duration. Cancel aborts it: the SDK then tells the server (notifications/cancelled).

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export type Outcome<T> = { kind: "ok"; value: T } | { kind: "error"; code?: number; message: string } | { kind: "cancelled" };

export interface CallState<T> {
  running: boolean;
  progress: Progress | null;
  outcome: Outcome<T> | null;
  ms: number | null;
}

export interface CallOptions {
  signal: AbortSignal;
  onprogress: (p: Progress) => void;
}

const IDLE = { running: false, progress: null, outcome: null, ms: null };

export function useCall<T>() {
  const [state, setState] = useState<CallState<T>>(IDLE);
  const current = useRef<AbortController | null>(null);

  const run = useCallback(async (fn: (o: CallOptions) => Promise<T>) => {
    current.current?.abort();
    const ctrl = new AbortController();
    current.current = ctrl;
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    setState({ running: true, progress: null, outcome: null, ms: null });
    // Only the latest report of a frame is rendered: a flood of them must not stall the page.
    const reports = batcher<Progress>((ps) => {
      const p = ps[ps.length - 1]!;
      if (current.current === ctrl) setState((s) => ({ ...s, progress: p }));
    }, 1);
    const onprogress = (p: Progress) => {
      if (current.current === ctrl) reports.push({ progress: p.progress, total: p.total, message: p.message });
    };
    let outcome: Outcome<T>;
    try {
      outcome = { kind: "ok", value: await fn({ signal: ctrl.signal, onprogress }) };
    } catch (e) {
      outcome = ctrl.signal.aborted ? { kind: "cancelled" } : { kind: "error", ...errorText(e) };
    }
    reports.clear();
    if (current.current !== ctrl) return;
    current.current = null;
    setState((s) => ({ running: false, progress: s.progress, outcome, ms: ms() }));
  }, []);

  const cancel = useCallback(() => current.current?.abort(new Error(PLAYGROUND_TEXT.cancelledByUser)), []);
  const reset = useCallback(() => {
    current.current?.abort();
    current.current = null;
    setState(IDLE);
  }, []);

  // A call still running when the tab goes away is cancelled at the server too.
  useEffect(() => () => current.current?.abort(), []);
  return { state, run, cancel, reset };
}
