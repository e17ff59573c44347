import { readFileSync } from "node:fs";
import net from "node:net";

// Ports for tests that share the machine with other Switchboards, sandboxes and test runs.
//
// Best is a socket bound to port 0 and kept open (`holdPort`): nothing else can take it, and a
// child process that inherits it (HAProxy's `bind fd@N`) listens on it without a gap. An app that
// must know its public URL before it opens its own port gets `freePort`: a port below the kernel's
// ephemeral range, so that no outgoing connection and no `listen(0)` elsewhere on the machine is
// ever given it between the check and the app's bind (a port from `listen(0)` itself, closed
// again, is in that range, and a busy machine hands it out again within seconds).

function ephemeralStart(): number {
  try {
    const [lo] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const n = Number(lo);
    if (Number.isInteger(n) && n > 12_000) return n;
  } catch {
    // not Linux: the IANA range's start
  }
  return 49_152;
}

const LOW = 10_000;
const HIGH = ephemeralStart() - 1;

function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(false));
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** A port nothing listens on now, outside the range the kernel hands out by itself. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if ((await bindable(port, "127.0.0.1")) && (await bindable(port, "0.0.0.0"))) return port;
  }
  throw new Error(`no free port between ${LOW} and ${HIGH}`);
}

export interface HeldPort {
  port: number;
  /** the listening socket's descriptor, for a child process to inherit */
  fd: number;
  /** closes this process's copy (after a child inherited it, the child keeps listening) */
  release(): Promise<void>;
}

/** A listening socket on a port the system picked, held open until released. */
export async function holdPort(host = "127.0.0.1"): Promise<HeldPort> {
  const s = net.createServer();
  // Nobody should connect before a child takes over; one that does is closed, not left hanging.
  s.on("connection", (c) => c.destroy());
  await new Promise<void>((resolve, reject) => {
    s.once("error", reject);
    s.listen({ port: 0, host, exclusive: true }, () => resolve());
  });
  const fd = (s as unknown as { _handle: { fd: number } })._handle.fd;
  if (typeof fd !== "number" || fd < 0) throw new Error("this platform does not expose a listening socket's descriptor");
  return {
    port: (s.address() as net.AddressInfo).port,
    fd,
    release: () => new Promise((resolve) => s.close(() => resolve())),
  };
}
