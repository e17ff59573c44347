// Reject with a reason: the admin's reason is kept for the submitter, e-mailed to them through a
// real SMTP server, and shown on My submissions; a reason too long is refused with nothing done.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";
import { mailsTo, startSmtpSink, waitForMail, type SmtpSink } from "~support/smtp-sink.js";
import { MY_SUBMISSIONS_TEXT, REJECT_REASON_MAX, REJECTION_MAIL_TEXT, type SubmissionLine } from "~/shared/catalog.js";
import { valid } from "./submissions-test-support.js";

const SUBMITTER = "rejected-submitter@example.com";
let t: TestApp;
let smtp: SmtpSink;
let admin: Client;
let sam: Client;

const link = async (email: string) => /https?:\/\/\S+/.exec((await waitForMail(smtp.dir, email)).text)![0];
const rejections = async () => (await mailsTo(smtp.dir, SUBMITTER)).filter((m) => !m.subject.startsWith("Confirm"));
const mine = async () => (await (await sam.get("/api/submissions")).json()) as SubmissionLine[];

beforeAll(async () => {
  smtp = await startSmtpSink(await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-reject-mail-")));
  t = await createTestApp({ ADMIN_EMAILS: "reject-admin@example.com", SMTP_URL: smtp.url, PUBLIC_URL: "http://127.0.0.1:3999" });
  admin = await signedInUser(t, "reject-admin@example.com", "password123", link);
  sam = await signedInUser(t, SUBMITTER, "password123", link);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

describe("Reject with a reason", () => {
  it("a reason too long is refused with a clear 400, and the entry stays pending with nothing written or sent", async () => {
    expect((await sam.post("/api/mcp-servers", { ...valid, id: "sam-long", name: "Sam Long" })).status).toBe(201);
    const r = await admin.del("/api/admin/mcp-servers/sam-long", { reason: "x".repeat(REJECT_REASON_MAX + 1) });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: `The reason can be at most ${REJECT_REASON_MAX} characters.` });
    expect((await mine()).filter((l) => l.id === "sam-long").map((l) => l.status)).toEqual(["pending"]);
    expect(await rejections()).toEqual([]);
    // Exactly the limit is fine.
    const ok = await admin.del("/api/admin/mcp-servers/sam-long", { reason: "y".repeat(REJECT_REASON_MAX) });
    expect(ok.status).toBe(200);
    expect((await mine()).find((l) => l.id === "sam-long")?.reason).toBe("y".repeat(REJECT_REASON_MAX));
  });

  it("the reason is stored, e-mailed to the submitter with the entry's name, and shown on My submissions", async () => {
    expect((await sam.post("/api/mcp-servers", { ...valid, id: "sam-private", name: "Sam Private" })).status).toBe(201);
    const reason = "Its repository is private, so nobody can check what it runs.\nMake it public and submit it again.";
    const before = (await rejections()).length;
    const r = await admin.del("/api/admin/mcp-servers/sam-private", { reason: `  ${reason}  ` });
    expect(r.status).toBe(200);

    const line = (await mine()).find((l) => l.id === "sam-private");
    expect(line).toMatchObject({ status: "rejected", name: "Sam Private", reason });

    await expect.poll(async () => (await rejections()).length - before, { timeout: 15_000 }).toBe(1);
    const mail = (await rejections())[before]!;
    expect(mail.subject).toBe(REJECTION_MAIL_TEXT.subject("Switchboard", "Sam Private"));
    expect(mail.text).toContain(REJECTION_MAIL_TEXT.body("Switchboard", "Sam Private", "sam-private"));
    expect(mail.text).toContain(REJECTION_MAIL_TEXT.reason(reason));
    expect(mail.text).toContain("http://127.0.0.1:3999/submissions");

    // The page shows the rejection with its reason.
    const page = (await (await sam.get("/submissions")).text()).replace(/<!-- -->/g, "");
    expect(page).toContain(MY_SUBMISSIONS_TEXT.status.rejected);
    expect(page).toContain(MY_SUBMISSIONS_TEXT.reason);
    expect(page).toContain("Make it public and submit it again.");
  });

  it("without a reason (the spec's call, no body) the rejection stands and the e-mail says none was given", async () => {
    expect((await sam.post("/api/mcp-servers", { ...valid, id: "sam-plain", name: "Sam Plain" })).status).toBe(201);
    const before = (await rejections()).length;
    expect((await admin.del("/api/admin/mcp-servers/sam-plain")).status).toBe(200);
    expect((await mine()).find((l) => l.id === "sam-plain")).toMatchObject({ status: "rejected", reason: null });
    // A reason of only spaces is no reason either.
    expect((await sam.post("/api/mcp-servers", { ...valid, id: "sam-blank", name: "Sam Blank" })).status).toBe(201);
    expect((await admin.del("/api/admin/mcp-servers/sam-blank", { reason: "   " })).status).toBe(200);
    expect((await mine()).find((l) => l.id === "sam-blank")?.reason).toBeNull();

    await expect.poll(async () => (await rejections()).length - before, { timeout: 15_000 }).toBe(2);
    const sent = (await rejections()).slice(before);
    expect(sent.map((m) => m.subject).sort()).toEqual(
      [REJECTION_MAIL_TEXT.subject("Switchboard", "Sam Plain"), REJECTION_MAIL_TEXT.subject("Switchboard", "Sam Blank")].sort(),
    );
    for (const m of sent) expect(m.text).toContain(REJECTION_MAIL_TEXT.noReason);
  });

  it("only an admin rejects, and only a pending entry", async () => {
    expect((await sam.post("/api/mcp-servers", { ...valid, id: "sam-kept", name: "Sam Kept" })).status).toBe(201);
    expect((await sam.del("/api/admin/mcp-servers/sam-kept", { reason: "mine" })).status).toBe(403);
    expect((await admin.post("/api/admin/mcp-servers/sam-kept/approve")).status).toBe(200);
    expect((await admin.del("/api/admin/mcp-servers/sam-kept", { reason: "too late" })).status).toBe(409);
    expect((await admin.del("/api/admin/mcp-servers/nobody-has-this", { reason: "none" })).status).toBe(404);
    expect((await mine()).find((l) => l.id === "sam-kept")).toMatchObject({ status: "approved", reason: null });
  });
});
