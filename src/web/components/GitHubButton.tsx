import { Loader2 } from "~/web/components/icons";
import { AUTH_TEXT } from "../../shared/auth";
import { Enhanced, useActionForm } from "../lib/forms";
import { Alert, Button, GitHubIcon } from "./ui";

/**
 * Starts GitHub's authorization-code flow (state and PKCE are handled by the server): a post to
 * the page's action (lib/github.server.ts), which sends the browser on to GitHub.
 */
export function GitHubButton({ enabled, disabled }: { enabled: boolean; disabled?: boolean }) {
  const { fetcher, answer, busy } = useActionForm<{ redirectTo?: string; error?: string }>("github", { reload: true });
  return (
    <fetcher.Form method="post">
      <Enhanced />
      <input type="hidden" name="intent" value="github" />
      <Button
        type="submit"
        variant="secondary"
        size="lg"
        block
        disabled={!enabled || busy || disabled}
        aria-describedby={enabled ? undefined : "github-off"}
      >
        {busy ? <Loader2 className="h-5 w-5 animate-spin" aria-hidden /> : <GitHubIcon />}
        {AUTH_TEXT.continueWithGitHub}
      </Button>
      {!enabled && (
        <p id="github-off" className="mt-1 text-center text-xs text-slate-600 dark:text-slate-400">
          {AUTH_TEXT.githubNotConfigured}
        </p>
      )}
      {answer?.error && (
        <div className="mt-3">
          <Alert kind="error">{answer.error}</Alert>
        </div>
      )}
    </fetcher.Form>
  );
}

export function Divider() {
  return (
    <div className="my-6 flex items-center gap-3 text-xs uppercase tracking-wider text-slate-600 dark:text-slate-400">
      <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
      or
      <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
    </div>
  );
}
