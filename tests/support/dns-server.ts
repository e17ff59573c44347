// A small authoritative DNS server for tests (UDP on 127.0.0.1, a port of its own): it answers TXT
// questions from a map the test changes as it goes, and NXDOMAIN for anything else.
import dgram from "node:dgram";
import fs from "node:fs/promises";
import type { AddressInfo } from "node:net";
import * as packet from "dns-packet";

export interface TestDns {
  /** host:port, for CUSTOM_DOMAIN_RESOLVERS */
  address: string;
  /** name -> its TXT values; delete a name to take its record away */
  txt: Map<string, string[]>;
  /** questions asked so far */
  asked: string[];
  close(): Promise<void>;
}

/**
 * `recordsFile`: a JSON object of name -> TXT values, read at every question, for tests in other
 * processes than the server's (the e2e tests write it; the server runs in their global setup).
 */
export async function startTestDns(recordsFile?: string): Promise<TestDns> {
  const txt = new Map<string, string[]>();
  const asked: string[] = [];
  const socket = dgram.createSocket("udp4");
  const fromFile = async (name: string): Promise<string[] | undefined> => {
    if (!recordsFile) return undefined;
    try {
      return (JSON.parse(await fs.readFile(recordsFile, "utf8")) as Record<string, string[]>)[name];
    } catch {
      return undefined;
    }
  };
  socket.on("message", (msg, from) => void answer(msg, from));
  const answer = async (msg: Buffer, from: dgram.RemoteInfo) => {
    let q: packet.Packet;
    try {
      q = packet.decode(msg);
    } catch {
      return;
    }
    const question = q.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    asked.push(`${question.type} ${name}`);
    const values = question.type === "TXT" ? (txt.get(name) ?? (await fromFile(name))) : undefined;
    const reply = packet.encode({
      id: q.id,
      type: "response",
      flags: packet.AUTHORITATIVE_ANSWER | (values ? 0 : 3), // rcode 3: NXDOMAIN
      questions: [question],
      answers: (values ?? []).map((v) => ({ type: "TXT" as const, name: question.name, ttl: 0, class: "IN" as const, data: v })),
    });
    socket.send(reply, from.port, from.address);
  };
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    txt,
    asked,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
