import { data, redirect } from "react-router";
import type { ApiAnswer } from "../../shared/api-answer";
import { ENHANCED_FIELD } from "./forms";

// Helpers for route actions (server only): what a form's post answers.

/** The post came from the page's scripts (a fetcher), not from a browser without JavaScript. */
export function isEnhanced(form: FormData): boolean {
  return form.get(ENHANCED_FIELD) === "1";
}

/** The Set-Cookie headers an API call answered (a sign-in), to pass on to the browser. */
export function cookieHeaders(...answers: Pick<ApiAnswer<unknown>, "cookies">[]): Headers {
  const headers = new Headers();
  for (const a of answers) for (const c of a.cookies) headers.append("Set-Cookie", c);
  return headers;
}

/**
 * A form that succeeded goes to `to`: without JavaScript at once (a redirect); with it, the page
 * is told where and goes there itself, after the spec's delay where it has one.
 */
export function finish(form: FormData, to: string, headers?: Headers) {
  return isEnhanced(form) ? data({ redirectTo: to }, { headers }) : redirect(to, { headers });
}

/** A string field of a posted form ("" when absent or a file). */
export function field(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
}
