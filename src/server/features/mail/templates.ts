import { REJECTION_MAIL_TEXT as R } from "~/shared/catalog.js";
import type { Mail } from "./mailer.js";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function layout(site: string, heading: string, body: string, action: { label: string; url: string }, footer: string): string {
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;background:#f8fafc;padding:24px;color:#0f172a">
<div style="max-width:520px;margin:auto;background:#fff;border-radius:12px;padding:32px;border:1px solid #e2e8f0">
<p style="font-weight:700;color:#4f46e5;margin:0 0 16px">${esc(site)}</p>
<h1 style="font-size:20px;margin:0 0 12px">${esc(heading)}</h1>
<p style="line-height:1.6">${esc(body)}</p>
<p style="margin:24px 0"><a href="${esc(action.url)}" style="background:#4f46e5;color:#fff;padding:10px 18px;border-radius:8px;text-decoration:none;font-weight:600">${esc(action.label)}</a></p>
<p style="font-size:13px;color:#64748b;line-height:1.5">Or paste this link into your browser:<br>${esc(action.url)}</p>
<p style="font-size:13px;color:#64748b">${esc(footer)}</p>
</div></body></html>`;
}

export function confirmEmailMail(site: string, to: string, url: string): Mail {
  const body = `Please confirm that this is the e-mail address of your ${site} account.`;
  const footer = "The link works once and expires in 24 hours. If you did not ask for this, ignore this e-mail.";
  return {
    to,
    subject: `Confirm your ${site} account`,
    text: `${body}\n\n${url}\n\n${footer}\n`,
    html: layout(site, "Confirm your e-mail address", body, { label: "Confirm e-mail", url }, footer),
  };
}

export function resetPasswordMail(site: string, to: string, url: string): Mail {
  const body = `Someone asked to reset the password of your ${site} account. Choose a new password with the link below.`;
  const footer =
    "The link works once and expires in 1 hour. If you did not ask for this, ignore this e-mail; your password stays the same.";
  return {
    to,
    subject: `Reset your ${site} password`,
    text: `${body}\n\n${url}\n\n${footer}\n`,
    html: layout(site, "Reset your password", body, { label: "Reset password", url }, footer),
  };
}

/** Control characters (a server's output may carry any) become spaces: one line of plain text. */
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim();

/** An alert on one of the recipient's deployments (features/alerts). */
export function alertMail(site: string, to: string, a: { subject: string; heading: string; message: string; url: string }): Mail {
  const message = oneLine(a.message).slice(0, 2000);
  const footer = "You get this because alerts are on for this deployment. Turn e-mail off under 'Monitoring & alerts' on its page.";
  return {
    to,
    subject: oneLine(a.subject).slice(0, 200),
    text: `${oneLine(a.heading)}\n\n${message}\n\n${a.url}\n\n${footer}\n`,
    html: layout(site, oneLine(a.heading), message, { label: "Open the deployment", url: a.url }, footer),
  };
}

/** An invitation to join an organisation (features/orgs): who invited the recipient to what, as which role. */
export function invitationMail(site: string, to: string, i: { org: string; inviter: string; role: string; url: string }): Mail {
  const org = oneLine(i.org).slice(0, 100);
  const inviter = oneLine(i.inviter).slice(0, 100);
  const body = `${inviter} invited you to join ${org} on ${site} as ${oneLine(i.role)}.`;
  const footer = "The invitation works once and expires in 7 days. If you did not expect it, ignore this e-mail.";
  return {
    to,
    subject: `Join ${org} on ${site}`,
    text: `${body}\n\n${i.url}\n\n${footer}\n`,
    html: layout(site, `Join ${org}`, body, { label: "See the invitation", url: i.url }, footer),
  };
}

/** A submission an admin rejected (features/catalog): its name, id and the admin's reason as written. */
export function rejectionMail(site: string, to: string, r: { name: string; id: string; reason: string | null; url: string }): Mail {
  const name = oneLine(r.name);
  const lines = (r.reason ?? "").split("\n").map(oneLine).filter(Boolean);
  const intro = R.body(site, name, oneLine(r.id));
  const reason = (sep: string) => (lines.length ? R.reason(lines.join(sep)) : R.noReason);
  return {
    to,
    subject: R.subject(site, name).slice(0, 200),
    text: `${intro}\n\n${reason("\n")}\n\n${R.again}\n\n${r.url}\n\n${R.footer}\n`,
    html: layout(site, R.heading, `${intro} ${reason(" ")} ${R.again}`, { label: R.action, url: r.url }, R.footer),
  };
}
