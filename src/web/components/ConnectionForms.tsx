import { Loader2, LogIn } from "~/web/components/icons";
import { CONNECTION_TEXT } from "../../shared/connections";
import { Button } from "./ui";

// The parts of a connection's forms that appear in more than one place: the choice to sign in to
// the server with OAuth (Connections, a catalogue entry's Connect) and the 'Sign in again' button
// (the Deployment panel, a connection's page).

/** "Sign in to the server (OAuth)": posts `oauth=on`. */
export function OAuthChoice({ id, defaultChecked }: { id: string; defaultChecked?: boolean }) {
  return (
    <label className="flex items-start gap-2 text-sm" htmlFor={id}>
      <input
        id={id}
        name="oauth"
        type="checkbox"
        className="mt-1 h-4 w-4"
        aria-describedby={`${id}-hint`}
        defaultChecked={defaultChecked}
      />
      <span>
        <span className="font-medium">{CONNECTION_TEXT.oauthLabel}</span>
        <span id={`${id}-hint`} className="block text-xs text-slate-600 dark:text-slate-400">
          {CONNECTION_TEXT.oauthHint}
        </span>
      </span>
    </label>
  );
}

/** The submit button of a form with `intent=sign-in`. */
export function SignInAgainButton({ busy, disabled, variant }: { busy: boolean; disabled: boolean; variant?: "secondary" }) {
  return (
    <Button type="submit" size="sm" variant={variant} disabled={disabled}>
      {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <LogIn className="h-4 w-4" aria-hidden />}
      {busy ? CONNECTION_TEXT.signingIn : CONNECTION_TEXT.signIn}
    </Button>
  );
}
