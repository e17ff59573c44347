import { data } from "react-router";
import type { AppLoadContext } from "react-router";
import { AUTH_TEXT } from "../../shared/auth";
import { resumeAuthorizeUrl } from "../../shared/oauth";
import { cookieHeaders, finish } from "./actions.server";

/**
 * 'Continue with GitHub' posted to /login or /register: asks the API for GitHub's authorization
 * URL (its state cookie goes to the browser) and sends the browser there. With `oauthQuery` (an
 * OAuth request that sent the visitor to sign in), GitHub's answer leads back to that request.
 */
export async function githubSignIn(context: AppLoadContext, form: FormData, mode: "login" | "register", oauthQuery: string) {
  const back = oauthQuery ? resumeAuthorizeUrl(new URLSearchParams(oauthQuery)) : "/";
  const r = await context.api<{ url?: string }>("POST", "/api/auth/sign-in/social", {
    provider: "github",
    callbackURL: back,
    newUserCallbackURL: back,
    errorCallbackURL: `/${mode}?error=github${oauthQuery ? `&${oauthQuery}` : ""}`,
  });
  if (r.ok && typeof r.data?.url === "string" && /^https?:\/\//.test(r.data.url)) return finish(form, r.data.url, cookieHeaders(r));
  return data(
    { form: "github", error: mode === "login" ? AUTH_TEXT.githubLoginFailed : AUTH_TEXT.githubRegisterFailed },
    { headers: cookieHeaders(r) },
  );
}
