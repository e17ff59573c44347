import { Hono } from "hono";
import { html, raw } from "hono/html";
import type { Mailer } from "./mailer.js";

// The development outbox (see docs/operations.md): mounted only when NODE_ENV is not production.
export function outboxRoutes(mailer: Mailer) {
  return new Hono()
    .get("/dev/outbox.json", (c) => c.json(mailer.outbox()))
    .get("/dev/outbox", (c) => {
      const mails = mailer.outbox();
      const items = mails.map(
        (m) =>
          html`<article style="border:1px solid #cbd5e1;border-radius:8px;margin:16px 0;padding:16px">
            <p><strong>To:</strong> ${m.to} &middot; <strong>Sent:</strong> ${m.sentAt}</p>
            <p><strong>Subject:</strong> ${m.subject}</p>
            <pre style="white-space:pre-wrap;background:#f1f5f9;padding:12px;border-radius:6px">${m.text}</pre>
          </article>`,
      );
      return c.html(
        html`<!doctype html>
          <html lang="en">
            <head>
              <meta charset="utf-8" />
              <title>Development outbox</title>
            </head>
            <body style="font-family:system-ui,sans-serif;max-width:860px;margin:24px auto;padding:0 16px">
              <h1>Development outbox</h1>
              <p>
                E-mails the app would have sent (no SMTP_URL is set). Newest first. JSON: <a href="/dev/outbox.json">/dev/outbox.json</a>
              </p>
              ${mails.length ? items : raw("<p>No e-mails yet.</p>")}
            </body>
          </html>`,
      );
    });
}
