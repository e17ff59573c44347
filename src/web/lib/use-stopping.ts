import { useEffect, useRef, useState } from "react";
import type { DeploymentState } from "./use-deployment";

/** A stop that failed leaves the deployment in place: its cards poll again after the stop's own time limit. */
export const STOP_RESUME_MS = 35_000;

/**
 * Whether this page is stopping the deployment: a card that polls it pauses (the stop removes it,
 * and a request meanwhile would meet it half gone: a 404). `onStop` runs first (a card forgets its
 * requests in flight). A stop that worked unmounts the card; one that failed resumes it.
 */
export function useStopping(onStopping: DeploymentState["onStopping"] | undefined, onStop?: () => void): boolean {
  const [stopping, setStopping] = useState(false);
  const first = useRef(onStop);
  useEffect(() => {
    first.current = onStop;
  }, [onStop]);
  useEffect(
    () =>
      onStopping?.(async () => {
        first.current?.();
        setStopping(true);
      }),
    [onStopping],
  );
  useEffect(() => {
    if (!stopping) return;
    const resume = setTimeout(() => setStopping(false), STOP_RESUME_MS);
    return () => clearTimeout(resume);
  }, [stopping]);
  return stopping;
}
