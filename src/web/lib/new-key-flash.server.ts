import { symmetricDecrypt, symmetricEncrypt } from "better-auth/crypto";
import type { AppLoadContext } from "react-router";
import type { NewKey } from "../components/HostedConnect";

// A key made from a server page goes back to that page, which fills it into its snippets once.
// How it travels, and why this way:
// - never in a URL (a query string stays in the history, the server's request log and any
//   proxy's), and never as a POST the browser keeps for "resubmit": the key page's action answers
//   with a redirect (303, or the page's scripts navigate), so history holds only plain GETs;
// - in a flash cookie the key page sets as it redirects: HttpOnly (no script reads it),
//   SameSite=Strict, Path=/server (only server pages receive it), two minutes at most, and its
//   value sealed (XChaCha20-Poly1305, better-auth's own, under the instance's auth secret) with the
//   user and the server it is for, so the browser's cookie store never holds the key in clear and
//   another account or another server page cannot read it;
// - read once: the server page that it is for clears it in the answer that shows the key
//   (Cache-Control: no-store on that answer), so a reload, or coming back later, shows the
//   placeholder again. Stateless, so it works whichever web process answers.

const COOKIE = "sb_new_key";
const TTL_S = 120;

interface Sealed {
  /** the key's name */
  n: string;
  /** the key */
  k: string;
  /** the server id it is for (`everything`, `alice/weather`) */
  s: string;
  /** the user who made it */
  u: string;
  /** good until (ms since the epoch) */
  e: number;
}

async function secretOf(context: AppLoadContext): Promise<string> {
  // A key of its own, derived from the auth secret: nothing better-auth seals opens here, or back.
  return `${(await context.auth.$context).secret}:switchboard-new-key-flash`;
}

const secure = (context: AppLoadContext) => (context.config.PUBLIC_URL.startsWith("https:") ? "; Secure" : "");

/** The Set-Cookie header that carries `key`, made by the signed-in viewer for `serverId`, to that server's page. */
export async function newKeyCookie(context: AppLoadContext, key: NewKey, serverId: string): Promise<string> {
  if (!context.viewer) throw new Error("only a signed-in viewer makes keys");
  const sealed: Sealed = { n: key.name, k: key.value, s: serverId, u: context.viewer.id, e: Date.now() + TTL_S * 1000 };
  const value = await symmetricEncrypt({ key: await secretOf(context), data: JSON.stringify(sealed) });
  return `${COOKIE}=${value}; Path=/server; Max-Age=${TTL_S}; HttpOnly; SameSite=Strict${secure(context)}`;
}

/**
 * On `serverId`'s page: the key its viewer just made for it, once. `headers` clear the cookie (and
 * keep the answer out of caches) whenever one came, unless it is for another server's page.
 */
export async function takeNewKey(
  context: AppLoadContext,
  request: Request,
  serverId: string,
): Promise<{ newKey: NewKey | null; headers: Headers }> {
  const headers = new Headers();
  const raw = cookieValue(request.headers.get("cookie") ?? "", COOKIE);
  if (!raw) return { newKey: null, headers };
  let sealed: Sealed | null = null;
  try {
    sealed = JSON.parse(await symmetricDecrypt({ key: await secretOf(context), data: raw })) as Sealed;
  } catch {
    sealed = null; // tampered with, or sealed under another secret: dropped below
  }
  // Made for another server's page (that page is on its way): left for it.
  if (sealed && sealed.s !== serverId && sealed.e > Date.now() && sealed.u === context.viewer?.id) return { newKey: null, headers };
  headers.append("Set-Cookie", `${COOKIE}=; Path=/server; Max-Age=0; HttpOnly; SameSite=Strict${secure(context)}`);
  headers.set("Cache-Control", "no-store");
  const good = sealed && sealed.s === serverId && sealed.e > Date.now() && context.viewer && sealed.u === context.viewer.id;
  return { newKey: good ? { name: sealed!.n, value: sealed!.k } : null, headers };
}

function cookieValue(header: string, name: string): string | null {
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** A server page's headers: the no-store its loader asked for when it showed a new key. */
export function serverPageHeaders({ loaderHeaders }: { loaderHeaders: Headers }): HeadersInit {
  const cacheControl = loaderHeaders.get("Cache-Control");
  return cacheControl ? { "Cache-Control": cacheControl } : {};
}
