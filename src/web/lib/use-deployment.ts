import { useCallback, useEffect, useRef, useState } from "react";
import { useRevalidator } from "react-router";
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

/**
 * `one`: the API path of one deployment (a connection's, `/api/connections/{id}`) polled instead
 * of the server's list: gone (404) reads as none.
 */
export function useDeployment(
  serverId: string,
  signedIn: boolean,
  initial?: DeploymentView | null,
  one?: string,
  /** whose deployment of the server: an organisation's slug, or "" for the viewer's own (the page's owner switch) */
  owner = "",
): DeploymentState {
  // What was last heard, and for which server: moving to another server's page (the same
  // component, new params) shows nothing of the previous server's deployment, not even once.
  // The page's loader heard it first (so it shows before and without scripts).
  const [held, setHeld] = useState<{ serverId: string; deployment: DeploymentView | null } | null>(
    initial === undefined ? null : { serverId, deployment: initial },
  );
  // Only the answer to the latest request counts: a slow poll must not overwrite a newer answer
  // (or an action's). One for the page before that still lands is held under its own server.
  const seq = useRef(0);
  const stopping = useRef(new Set<() => Promise<void>>());
  const current = held?.serverId === serverId ? held : null;

  const refresh = useCallback(async () => {
    const mine = ++seq.current;
    const r = one
      ? await api<DeploymentView>(one).then((a) =>
          a.ok ? { ...a, data: { deployments: [a.data] } } : a.status === 404 ? { ok: true as const, data: { deployments: [] } } : a,
        )
      : await api<{ deployments: DeploymentView[] }>(`/api/deployments/server/${serverId}?owner=${encodeURIComponent(owner)}`);
    if (mine !== seq.current) return;
    setHeld((h) =>
      r.ok ? { serverId, deployment: r.data.deployments[0] ?? null } : h?.serverId === serverId ? h : { serverId, deployment: null },
    );
  }, [serverId, one, owner]);

  const setDeployment = useCallback(
    (d: DeploymentView | null) => {
      seq.current++;
      setHeld({ serverId, deployment: d });
    },
    [serverId],
  );

  useEffect(() => {
    if (!signedIn) return;
    const first = setTimeout(() => void refresh(), 0);
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [signedIn, refresh]);

  // Reaching running (a deploy, a restart, a crash recovered) lists its tools anew: the page's
  // panels that the loader filled (Tools, Exposed tools) are read again, without a reload.
  const { revalidate } = useRevalidator();
  // (Seen first already running counts too: a deployment made elsewhere, say through the API.)
  const status = current ? (current.deployment ? `${current.deployment.id}:${current.deployment.status}` : "none") : undefined;
  const lastStatus = useRef(status);
  useEffect(() => {
    const before = lastStatus.current;
    lastStatus.current = status;
    if (status?.endsWith(":running") && before !== undefined && before !== status) void revalidate();
  }, [status, revalidate]);

  const onStopping = useCallback((fn: () => Promise<void>) => {
    stopping.current.add(fn);
    return () => void stopping.current.delete(fn);
  }, []);
  const beforeStop = useCallback(async () => {
    const all = Promise.all([...stopping.current].map((fn) => fn().catch(() => undefined)));
    await Promise.race([all, new Promise((r) => setTimeout(r, GOODBYE_MS))]);
  }, []);

  return { deployment: current?.deployment ?? null, loaded: !signedIn || current !== null, setDeployment, refresh, onStopping, beforeStop };
}
