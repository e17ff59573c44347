import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { networkEnv } from "../../src/server/features/runtime/installer.js";
import { projectRoot } from "../../src/server/paths.js";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface AppProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built app (dist/server.js) as a real process and waits until it answers /readyz. */
export async function startAppProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<AppProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [path.join(projectRoot, "dist/server.js")], {
    cwd: projectRoot,
    env: { ...networkEnv(), PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "warn", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app exited early (${child.exitCode}):\n${out}`);
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`app did not become ready in ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    output: () => out,
    async stop(signal = "SIGINT") {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
