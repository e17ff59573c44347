// A real SMTP server (the smtp-server package) that keeps every message it receives as a file.
import fs from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { waitFor } from "./wait.js";

export interface SmtpSink {
  url: string;
  dir: string;
  close(): Promise<void>;
}

export async function startSmtpSink(dir: string): Promise<SmtpSink> {
  await fs.mkdir(dir, { recursive: true });
  let n = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const name = `${Date.now()}-${String(++n).padStart(5, "0")}.eml`;
        fs.writeFile(path.join(dir, name), Buffer.concat(chunks)).then(() => callback(), callback);
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, dir, close: () => new Promise((r) => server.close(() => r())) };
}

/** Waits for a message to `to` and returns its parsed text. */
export async function waitForMail(
  dir: string,
  to: string,
  opts: { after?: number; timeoutMs?: number } = {},
): Promise<{ subject: string; text: string }> {
  const { simpleParser } = await import("mailparser");
  const mail = async () => {
    const files = (await fs.readdir(dir))
      .filter((f) => f.endsWith(".eml"))
      .sort()
      .reverse();
    for (const f of files) {
      if (opts.after && Number(f.split("-")[0]) < opts.after) continue;
      const mail = await simpleParser(await fs.readFile(path.join(dir, f)));
      const rcpt = Array.isArray(mail.to) ? mail.to.map((a) => a.text).join(",") : (mail.to?.text ?? "");
      if (rcpt.toLowerCase().includes(to.toLowerCase())) return { subject: mail.subject ?? "", text: mail.text ?? "" };
    }
    return undefined;
  };
  return waitFor(`mail to ${to}`, mail, opts.timeoutMs ?? 15_000).catch(() => {
    throw new Error(`no mail to ${to} within the timeout`);
  });
}

/** Every message to `to` received so far, oldest first. */
export async function mailsTo(dir: string, to: string): Promise<{ subject: string; text: string }[]> {
  const { simpleParser } = await import("mailparser");
  const out: { subject: string; text: string }[] = [];
  for (const f of (await fs.readdir(dir)).filter((f) => f.endsWith(".eml")).sort()) {
    const mail = await simpleParser(await fs.readFile(path.join(dir, f)));
    const rcpt = Array.isArray(mail.to) ? mail.to.map((a) => a.text).join(",") : (mail.to?.text ?? "");
    if (rcpt.toLowerCase().includes(to.toLowerCase())) out.push({ subject: mail.subject ?? "", text: mail.text ?? "" });
  }
  return out;
}
