import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { promisify } from "node:util";

// Test hosts on this machine: a network namespace the test creates, joined to the host by a veth
// pair, holding the addresses the test names (private, CGNAT, link-local, ...), each answering
// TCP on one port. Routes on the host send exactly those addresses (/32) into the veth, so no
// packet to them ever leaves this machine. Needs root and iproute2.

const run = promisify(execFile);
const ip = (...args: string[]) => run("ip", args, { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } });

export interface TestHosts {
  addresses: string[];
  port: number;
  close(): Promise<void>;
}

export async function canCreateTestHosts(): Promise<string | null> {
  if (process.getuid?.() !== 0) return "needs root to create a network namespace";
  try {
    await ip("-V");
    return null;
  } catch {
    return "needs iproute2 (ip)";
  }
}

/** Connects from this process (the host): the control that shows a refusal elsewhere is the sandbox's doing. */
export function hostConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (r: string) => {
      s.destroy();
      resolve(r);
    };
    s.setTimeout(3000, () => done("ETIMEDOUT"));
    s.once("connect", () => done("connected"));
    s.once("error", (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
  });
}

/**
 * `serveDir`: the hosts answer HTTP with the files of that folder (a test registry, say; a path
 * ending in / serves its index.html) instead of a plain TCP greeting; `command` runs a server of
 * the test's own there instead.
 */
export async function createTestHosts(
  addresses: string[],
  port = 7777,
  opts: { serveDir?: string; command?: string[] } = {},
): Promise<TestHosts> {
  const id = randomBytes(3).toString("hex");
  const ns = `sbt-${id}`;
  const hostSide = `sbh${id}`;
  const nsSide = `sbn${id}`;
  let server: ChildProcess | undefined;
  const close = async () => {
    server?.kill("SIGKILL");
    for (const a of addresses) await ip("route", "del", `${a}/32`).catch(() => {});
    await ip("link", "del", hostSide).catch(() => {});
    await ip("netns", "del", ns).catch(() => {});
  };
  try {
    await ip("netns", "add", ns);
    await ip("link", "add", hostSide, "type", "veth", "peer", "name", nsSide);
    await ip("link", "set", nsSide, "netns", ns);
    await ip("-n", ns, "link", "set", "lo", "up");
    for (const a of addresses) await ip("-n", ns, "addr", "add", `${a}/32`, "dev", nsSide);
    await ip("-n", ns, "link", "set", nsSide, "up");
    await ip("-n", ns, "route", "add", "default", "dev", nsSide);
    // No IPv6 on the host's end: its address would arrive seconds later, and a browser of the test
    // (Chromium watches the machine's addresses) would abort its page loads as "network changed".
    await fs.writeFile(`/proc/sys/net/ipv6/conf/${hostSide}/disable_ipv6`, "1").catch(() => undefined);
    await ip("link", "set", hostSide, "up");
    for (const a of addresses) {
      await ip("route", "add", `${a}/32`, "dev", hostSide);
      // Never let a test address fall through to the default route: check where it goes.
      const { stdout } = await ip("route", "get", a);
      if (!stdout.includes(`dev ${hostSide}`)) throw new Error(`route to ${a} does not go to the test host: ${stdout}`);
    }
    const code = opts.serveDir
      ? `const fs = require("fs"), path = require("path"); require("http").createServer((q, r) => { const p = decodeURIComponent(new URL(q.url, "http://x").pathname); const f = path.join(${JSON.stringify(opts.serveDir)}, p, p.endsWith("/") ? "index.html" : ""); fs.readFile(f, (e, b) => { if (e) { r.writeHead(404); return r.end("{}"); } r.writeHead(200, { "content-type": f.endsWith(".html") ? "text/html" : [".tgz", ".whl", ".gz"].some((x) => f.endsWith(x)) ? "application/octet-stream" : "application/json" }); r.end(b); }); }).listen(${port}, "0.0.0.0")`
      : `require("net").createServer((s) => { s.on("error", () => {}); s.end("hello"); }).listen(${port}, "0.0.0.0")`;
    // `command`: a server of the test's own (a container registry, say) that listens on `port` there.
    server = spawn("ip", ["netns", "exec", ns, ...(opts.command ?? [process.execPath, "-e", code])], {
      stdio: "ignore",
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
    });
    const deadline = Date.now() + 10_000;
    while ((await hostConnect(addresses[0]!, port)) !== "connected") {
      if (Date.now() > deadline) throw new Error("the test host did not start listening");
      await new Promise((r) => setTimeout(r, 100));
    }
    return { addresses, port, close };
  } catch (e) {
    await close();
    throw e;
  }
}
