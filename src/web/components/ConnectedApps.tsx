import { Loader2, PlugZap, Trash2 } from "~/web/components/icons";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { toast } from "sonner";
import { OAUTH_TEXT, type ConnectedAppView } from "../../shared/oauth";
import { api } from "../lib/api";
import { longDate } from "../lib/dates";
import { ConfirmDialog } from "./ConfirmDialog";
import { Alert, Button, linkClass, NeedsScript } from "./ui";

// 'Connected apps' (docs/product.md#oauth-connections): every OAuth client with access to one of
// the user's deployments, loaded in the browser, each revocable. The page hosts the toaster.

type State = { kind: "loading" } | { kind: "failed" } | { kind: "loaded"; apps: ConnectedAppView[] };

export function ConnectedApps() {
  const [state, setState] = useState<State>({ kind: "loading" });
  const [confirming, setConfirming] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void api<{ data: ConnectedAppView[] }>("/api/auth/connected-apps", { timeoutMs: 20_000 }).then((r) => {
      if (!live) return;
      setState(r.ok && Array.isArray(r.data?.data) ? { kind: "loaded", apps: r.data.data } : { kind: "failed" });
    });
    return () => {
      live = false;
    };
  }, []);

  async function revoke(app: ConnectedAppView) {
    setRevoking(app.id);
    const r = await api(`/api/auth/connected-apps/${encodeURIComponent(app.id)}`, { method: "DELETE", timeoutMs: 20_000 });
    setRevoking(null);
    setConfirming(null);
    if (!r.ok) {
      toast.error(OAUTH_TEXT.revokeFailed);
      return;
    }
    setState((s) => (s.kind === "loaded" ? { kind: "loaded", apps: s.apps.filter((a) => a.id !== app.id) } : s));
    toast.success(OAUTH_TEXT.revoked(app.clientName));
  }

  return (
    <section className="mt-12" aria-labelledby="connected-apps" data-testid="connected-apps">
      <h2 id="connected-apps" className="flex items-center gap-2 text-lg font-semibold">
        <PlugZap className="h-5 w-5 text-indigo-500" aria-hidden /> {OAUTH_TEXT.connectedTitle}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{OAUTH_TEXT.connectedIntro}</p>
      {state.kind === "loading" && (
        <p className="mt-3 flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400" role="status">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> {OAUTH_TEXT.loading}
        </p>
      )}
      {state.kind === "loading" && <NeedsScript />}
      {state.kind === "failed" && (
        <div className="mt-3">
          <Alert kind="error">{OAUTH_TEXT.loadFailed}</Alert>
        </div>
      )}
      {state.kind === "loaded" && state.apps.length === 0 && (
        <p className="mt-3 rounded-xl border border-dashed border-slate-300 p-8 text-center text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {OAUTH_TEXT.empty}
        </p>
      )}
      {state.kind === "loaded" && state.apps.length > 0 && (
        <ul className="mt-3 divide-y divide-slate-200 rounded-xl border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
          {state.apps.map((app) => {
            const where = app.deployment?.serverId ?? OAUTH_TEXT.deploymentRemoved;
            return (
              <li key={app.id} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3" data-testid="connected-app">
                <div className="min-w-0">
                  <p className="font-medium break-words">{app.clientName}</p>
                  <p className="text-sm text-slate-600 dark:text-slate-400">
                    {OAUTH_TEXT.sendsToHost(app.redirectHost)} ·{" "}
                    {app.deployment ? (
                      <Link to={`/server/${app.deployment.serverId}`} className={linkClass}>
                        {app.deployment.serverId}
                      </Link>
                    ) : (
                      OAUTH_TEXT.deploymentRemoved
                    )}
                  </p>
                  <p className="text-sm text-slate-600 dark:text-slate-400">
                    {OAUTH_TEXT.granted(longDate(app.grantedAt))} ·{" "}
                    {app.lastUsedAt ? OAUTH_TEXT.lastUsed(longDate(app.lastUsedAt)) : OAUTH_TEXT.neverUsed}
                  </p>
                </div>
                <ConfirmDialog
                  open={confirming === app.id}
                  onOpenChange={(open) => setConfirming(open ? app.id : null)}
                  trigger={
                    <Button
                      variant="dangerOutline"
                      size="sm"
                      disabled={revoking === app.id}
                      aria-label={OAUTH_TEXT.revokeLabel(app.clientName, where)}
                    >
                      {revoking === app.id ? (
                        <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
                      ) : (
                        <Trash2 className="h-4 w-4" aria-hidden />
                      )}{" "}
                      {OAUTH_TEXT.revoke}
                    </Button>
                  }
                  title={OAUTH_TEXT.revokeTitle(app.clientName, where)}
                  description={OAUTH_TEXT.revokeText}
                  confirmLabel={OAUTH_TEXT.revoke}
                  cancelLabel={OAUTH_TEXT.cancel}
                  busy={revoking === app.id}
                  onConfirm={() => void revoke(app)}
                />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
