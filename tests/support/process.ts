import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { networkEnv } from "~/server/features/runtime/sources/install-env.js";
import { projectRoot } from "~/server/paths.js";
import { freePort } from "./ports.js";

export { freePort };

export interface AppProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the built app (dist/server.js) as a real process and waits until it answers /readyz.
 * `inheritFd`: the app also inherits a descriptor without close-on-exec, as a careless parent (a
 * shell, a supervisor) would leave it. It is fd 40, past a gap: Node's own start-up marks the
 * unbroken run of descriptors from 0 close-on-exec (libuv's uv_disable_stdio_inheritance stops at
 * the first gap after 15), so a low one such as fd 3 would prove nothing.
 */
export const INHERITED_FD = 40;

export interface StartOptions {
  inheritFd?: boolean;
  /** where readiness is polled instead of `{url}/readyz` (a runner-only process answers on RUNNER_URL, not on PORT) */
  readyUrl?: string;
}

export async function startAppProcess(env: Record<string, string>, timeoutMs = 60_000, opts: StartOptions = {}): Promise<AppProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  // SEED_CHECKS off: a fresh database's demo catalogue is checked in the background only where a test asks for it.
  const child = spawn(process.execPath, [path.join(projectRoot, "dist/server.js")], {
    cwd: projectRoot,
    env: {
      ...networkEnv(),
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      LOG_LEVEL: "warn",
      SEED_CHECKS: "off",
      ...env,
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe", ...(opts.inheritFd ? [...Array<"ignore">(INHERITED_FD - 3).fill("ignore"), "pipe" as const] : [])],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code, signal) => {
      // Killed by a signal rather than exiting: the output says which, for the test that asks.
      if (signal) out += `\n[exited on ${signal}]`;
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app exited early (${child.exitCode}):\n${out}`);
    try {
      const r = await fetch(opts.readyUrl ?? `${url}/readyz`);
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

/**
 * A confirmed account on a running app process (through its development outbox) and an API key of it.
 * `origin`: the Origin sent on state-changing requests when the process has a PUBLIC_URL other than its own address.
 */
export async function accountWithKey(app: AppProcess, email: string, origin = app.url): Promise<string> {
  const headers = { origin, "content-type": "application/json" };
  let cookie = "";
  const post = async (p: string, body: unknown) => {
    const r = await fetch(`${app.url}${p}`, { method: "POST", headers: { ...headers, cookie }, body: JSON.stringify(body) });
    cookie = (r.headers.getSetCookie()[0]?.split(";")[0] ?? cookie) || cookie;
    return r;
  };
  const signUp = await post("/api/auth/sign-up/email", { email, password: "password123", name: email.split("@")[0] });
  if (signUp.status !== 200) throw new Error(`sign-up: ${signUp.status} ${await signUp.text()}`);
  // The development outbox is each process's own: with worker processes, ask until the one that sent it answers.
  let mail: { to: string; text: string } | undefined;
  for (let i = 0; i < 20 && !mail; i++) {
    const mails = (await (await fetch(`${app.url}/dev/outbox.json`, { headers: { connection: "close" } })).json()) as {
      to: string;
      text: string;
    }[];
    mail = mails.findLast((m) => m.to.includes(email));
  }
  if (!mail) throw new Error(`no confirmation mail for ${email}`);
  const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
  await fetch(`${app.url}${link.pathname}${link.search}`, { redirect: "manual" });
  if ((await post("/api/auth/sign-in/email", { email, password: "password123" })).status !== 200) throw new Error("sign-in failed");
  return ((await (await post("/api/auth/apikeys", { name: "test", scopes: ["mcp", "deploy", "servers"] })).json()) as { apiKey: string })
    .apiKey;
}

/** A session cookie of an account made by accountWithKey (password "password123"), signed in on `base`. */
export async function signInCookie(base: string, email: string, origin = base): Promise<string> {
  const r = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { origin, "content-type": "application/json" },
    body: JSON.stringify({ email, password: "password123" }),
  });
  if (r.status !== 200) throw new Error(`sign-in: ${r.status}`);
  return r.headers.getSetCookie()[0]!.split(";")[0]!;
}
