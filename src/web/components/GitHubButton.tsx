import { Loader2 } from "lucide-react";
import { useState } from "react";
import { AUTH_TEXT } from "../../shared/auth";
import { resumeAuthorizeUrl } from "../../shared/oauth";
import { api } from "../lib/api";
import { Button, GitHubIcon } from "./ui";

/**
 * Starts GitHub's authorization-code flow (state and PKCE are handled by the server). With
 * `oauthQuery` (an OAuth request that sent the visitor to sign in), GitHub's answer leads back to it.
 */
export function GitHubButton({ enabled, mode, onError, disabled, oauthQuery }: { enabled: boolean; mode: "login" | "register"; onError: (msg: string) => void; disabled?: boolean; oauthQuery?: string }) {
  const [busy, setBusy] = useState(false);
  const failed = mode === "login" ? AUTH_TEXT.githubLoginFailed : AUTH_TEXT.githubRegisterFailed;
  async function start() {
    setBusy(true);
    const back = oauthQuery ? resumeAuthorizeUrl(new URLSearchParams(oauthQuery)) : "/";
    const r = await api<{ url?: string }>("/api/auth/sign-in/social", {
      body: { provider: "github", callbackURL: back, newUserCallbackURL: back, errorCallbackURL: `/${mode}?error=github${oauthQuery ? `&${oauthQuery}` : ""}` },
      timeoutMs: 20_000,
    });
    if (r.ok && r.data.url) {
      window.location.assign(r.data.url);
      return;
    }
    setBusy(false);
    onError(failed);
  }
  return (
    <div>
      <Button variant="secondary" size="lg" block onClick={start} disabled={!enabled || busy || disabled} aria-describedby={enabled ? undefined : "github-off"}>
        {busy ? <Loader2 className="h-5 w-5 animate-spin" aria-hidden /> : <GitHubIcon />}
        {AUTH_TEXT.continueWithGitHub}
      </Button>
      {!enabled && (
        <p id="github-off" className="mt-1 text-center text-xs text-slate-500 dark:text-slate-400">
          {AUTH_TEXT.githubNotConfigured}
        </p>
      )}
    </div>
  );
}

export function Divider() {
  return (
    <div className="my-6 flex items-center gap-3 text-xs uppercase tracking-wider text-slate-500">
      <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
      or
      <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
    </div>
  );
}
