import { describe, expect, it } from "vitest";
import { alertMail, rejectionMail } from "./templates.js";

// An alert carries what a deployment printed (its last output line): hostile text must stay text.
describe("alertMail", () => {
  const hostile = {
    subject: "[Switchboard] evil\r\nBcc: victim@example.com: Crash looping",
    heading: "evil: Crash looping",
    message: 'It keeps crashing: <img src=x onerror="alert(1)">\r\nBcc: victim@example.com\u2028<script>x</script>',
    url: "https://switchboard.example/server/evil",
  };

  it("keeps the subject on one line, so a server's output cannot add headers", () => {
    const m = alertMail("Switchboard", "owner@example.com", hostile);
    expect(m.subject).toBe("[Switchboard] evil Bcc: victim@example.com: Crash looping");
    expect(m.subject).not.toMatch(/[\r\n]/);
  });

  it("escapes the server's text in the HTML part and keeps it one line in the text part", () => {
    const m = alertMail("Switchboard", "owner@example.com", hostile);
    expect(m.html).not.toContain("<img");
    expect(m.html).not.toContain("<script>");
    expect(m.html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(m.text.split("\n")[2]).toBe('It keeps crashing: <img src=x onerror="alert(1)"> Bcc: victim@example.com <script>x</script>');
    expect(m.text).toContain(hostile.url);
  });
});

// A rejection carries the submitter's name for their entry and the admin's reason: both stay text.
describe("rejectionMail", () => {
  const r = {
    name: "Evil\r\nBcc: victim@example.com",
    id: "evil",
    reason: "Has <script>x</script>\nsecond line",
    url: "https://s.example/submissions",
  };

  it("keeps the subject on one line and escapes the reason in the HTML part", () => {
    const m = rejectionMail("Switchboard", "sam@example.com", r);
    expect(m.subject).toBe('Your Switchboard submission "Evil Bcc: victim@example.com" was not listed');
    expect(m.html).not.toContain("<script>");
    expect(m.html).toContain("Their reason: Has &lt;script&gt;x&lt;/script&gt; second line");
    expect(m.text).toContain("Their reason: Has <script>x</script>\nsecond line");
    expect(m.text).toContain(r.url);
  });
});
