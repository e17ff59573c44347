import { useCallback, useEffect, useRef, useState } from "react";
import type { DeploymentView } from "../../shared/deployments";
import { api } from "./api";

// The viewer's deployment of one server, polled every 5 s (docs/product.md#hosting). One poll per
// page: the Deployment panel and the playground both read it.

const POLL_MS = 5000;
/** How long a stop waits for open sessions to say goodbye. */
const GOODBYE_MS = 3000;

export interface DeploymentState {
  /** the viewer's own deployment of this server (the API lists only the viewer's), or null */
  deployment: DeploymentView | null;
  /** the first answer has arrived (always true when signed out: there is nothing to load) */
  loaded: boolean;
  /** set what an action (deploy, stop) answered, without waiting for the next poll */
  setDeployment: (d: DeploymentView | null) => void;
  refresh: () => Promise<void>;
  /** run `fn` before the deployment is stopped from this page (the playground ends its session); returns the unsubscribe */
  onStopping: (fn: () => Promise<void>) => () => void;
  /** what the page does just before it stops the deployment: every onStopping hook, for at most a few seconds */
  beforeStop: () => Promise<void>;
}

export function useDeployment(serverId: string, signedIn: boolean): DeploymentState {
  const [deployment, setDeployment] = useState<DeploymentView | null>(null);
  const [loaded, setLoaded] = useState(!signedIn);
  const stopping = useRef(new Set<() => Promise<void>>());

  const refresh = useCallback(async () => {
    const r = await api<{ deployments: DeploymentView[] }>(`/api/deployments/server/${serverId}`);
    if (r.ok) setDeployment(r.data.deployments[0] ?? null);
    setLoaded(true);
  }, [serverId]);

  useEffect(() => {
    if (!signedIn) return;
    const first = setTimeout(() => void refresh(), 0);
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [signedIn, refresh]);

  const onStopping = useCallback((fn: () => Promise<void>) => {
    stopping.current.add(fn);
    return () => void stopping.current.delete(fn);
  }, []);
  const beforeStop = useCallback(async () => {
    const all = Promise.all([...stopping.current].map((fn) => fn().catch(() => undefined)));
    await Promise.race([all, new Promise((r) => setTimeout(r, GOODBYE_MS))]);
  }, []);

  return { deployment, loaded, setDeployment, refresh, onStopping, beforeStop };
}
