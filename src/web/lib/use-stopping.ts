import { useCallback, useEffect, useRef, useState } from "react";
import type { DeploymentState } from "./use-deployment";

/** A stop that failed leaves the deployment in place: its cards poll again after the stop's own time limit. */
export const STOP_RESUME_MS = 35_000;

export interface Stopping {
  /** this page is stopping the deployment: the card reads nothing of it */
  stopping: boolean;
  /** wraps a read of the deployment: a stop from this page waits for it to come back first */
  track: <T>(read: Promise<T>) => Promise<T>;
}

/**
 * Whether this page is stopping the deployment: a card that polls it pauses (the stop removes it,
 * and a request meanwhile would meet it half gone: a 404). `onStop` runs first (a card forgets its
 * requests in flight), then the stop waits for the card's reads still in flight (each with its
 * own time limit; the page's goodbye time bounds the whole), so none of them lands on a
 * deployment being removed. A stop that worked unmounts the card; one that failed resumes it.
 */
export function useStopping(onStopping: DeploymentState["onStopping"] | undefined, onStop?: () => void): Stopping {
  const [stopping, setStopping] = useState(false);
  const first = useRef(onStop);
  const inFlight = useRef(new Set<Promise<unknown>>());
  useEffect(() => {
    first.current = onStop;
  }, [onStop]);
  useEffect(
    () =>
      onStopping?.(async () => {
        first.current?.();
        setStopping(true);
        await Promise.all([...inFlight.current]);
      }),
    [onStopping],
  );
  useEffect(() => {
    if (!stopping) return;
    const resume = setTimeout(() => setStopping(false), STOP_RESUME_MS);
    return () => clearTimeout(resume);
  }, [stopping]);
  const track = useCallback(<T>(read: Promise<T>): Promise<T> => {
    const settled = read.then(
      () => undefined,
      () => undefined,
    );
    inFlight.current.add(settled);
    void settled.then(() => inFlight.current.delete(settled));
    return read;
  }, []);
  return { stopping, track };
}
