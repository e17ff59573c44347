// The way into a sandbox's network for an image that speaks streamable HTTP: socat, entered into
// the sandbox's user and network namespaces (as the deployment's uid, as slirp4netns is), listens
// on a unix socket in a folder of the deployment's own (0700, outside what the server sees) and
// connects each stream to 127.0.0.1:<port> inside the sandbox. Nothing listens on the host's
// network; the platform reaches the server through the socket only. socat reads no file and runs
// nothing: it moves bytes.
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { Identity } from "./identity.js";
import { hostSpawn, SYS_PATH } from "./host-process.js";

export interface RelaySpec {
  /** the sandbox's first process (bwrap's child-pid) */
  pid: number;
  /** whether the sandbox has a user namespace of its own (the relay joins it to reach the network namespace) */
  userns: boolean;
  identity: Identity | null;
  /** the unix socket the platform connects to */
  socket: string;
  /** the port the server listens on inside its sandbox */
  port: number;
}

/** Whether this machine has socat (HTTP images need it). */
export const relayMissing = (): string | null =>
  SYS_PATH.split(":").some((d) => existsSync(path.join(d, "socat"))) ? null : "socat is not installed (apt-get install socat)";

/** Starts the relay; resolves once its socket exists. */
export async function startRelay(r: RelaySpec): Promise<ChildProcess> {
  const dir = path.dirname(r.socket);
  await fs.rm(r.socket, { force: true });
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (r.identity) await fs.chown(dir, r.identity.uid, r.identity.gid);
  await fs.chmod(dir, 0o700);
  // As root the platform may enter any namespace, but the relay runs as the deployment's uid,
  // which enters the sandbox's user namespace (its own) first, as a platform that is not root does.
  const enter = r.userns ? ["--user", "--preserve-credentials"] : [];
  const ids = r.identity ? { uid: r.identity.uid, gid: r.identity.gid } : {};
  const relay = hostSpawn(
    "nsenter",
    [`--target=${r.pid}`, ...enter, "--net", "--", "socat", `UNIX-LISTEN:${r.socket},fork,umask=0077`, `TCP:127.0.0.1:${r.port},nodelay`],
    { stdio: ["ignore", "ignore", "pipe"], ...ids },
  );
  let err = "";
  relay.stderr!.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-2000)));
  relay.on("error", () => {});
  const deadline = Date.now() + 5000;
  for (let wait = 2; !existsSync(r.socket); wait = Math.min(wait * 2, 50)) {
    if (relay.exitCode !== null || relay.signalCode !== null || Date.now() > deadline) {
      relay.kill("SIGKILL");
      throw new Error(`the relay into the sandbox's network did not start: ${err.trim().split("\n").slice(-2).join(" ") || "no socket"}`);
    }
    await new Promise((res) => setTimeout(res, wait));
  }
  return relay;
}
