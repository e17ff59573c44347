import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { DEPLOY_TEXT, hostingOpen } from "../../../shared/deployments.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { deleteDeployment, findDeployment, listDeploymentsToRecover, saveCapabilities, updateDeployment, type DeploymentRow, type ServerKind } from "../deployments/repo.js";
import { Child, processStartTime, type ExitInfo } from "./child.js";
import type { SecretBox } from "./crypto.js";
import { childNetworkEnv } from "./install-env.js";
import type { Installer, Source } from "./installer.js";
import { SANDBOX_PATH } from "./sandbox/bwrap.js";
import type { Limits, Sandbox, SandboxInfo } from "./sandbox/index.js";
import type { Volumes } from "./sandbox/volumes.js";

// Runs deployments as supervised child processes: install -> start -> MCP listing -> running;
// a crash is restarted with exponential back-off; stop kills the whole process group.

export type Status = "queued" | "installing" | "starting" | "running" | "crashed" | "crash_looping" | "stopped" | "failed";

export interface SupervisorOptions {
  db: Db;
  log: Logger;
  box: SecretBox;
  installer: Installer;
  sandbox: Sandbox;
  volumes: Volumes;
  limits: Limits;
  diskMb: number;
  /** SANDBOX_INCOMPLETE */
  hostingPolicy: "admins" | "everyone";
  startTimeoutMs: number;
  backoffMs: number;
  backoffMaxMs: number;
  healthyResetMs: number;
  crashLoopAfter: number;
}

interface Slot {
  id: string;
  child?: Child;
  client?: Client;
  timer?: NodeJS.Timeout;
  stopping: boolean;
  /** consecutive crashes since the last healthy stretch */
  failures: number;
  runningSince?: number;
  everRan: boolean;
  /** output of the last process, kept across restarts so the owner can see why it crashed */
  lastLogs: string[];
  /** the start in progress (install, build, initialize), and how to cut it short */
  starting?: Promise<void>;
  abort?: AbortController;
}

/** The SDK client speaking to a child over its stdio lines. */
class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (e: Error) => void;
  onmessage?: (m: JSONRPCMessage) => void;
  private off?: () => void;
  constructor(private readonly child: Child) {}
  async start() {
    // Only answers to the platform's own (numeric) request ids, and the server's pings (answered
    // even before any client connects): the gateway's sessions use string ids, and the other
    // server-to-client requests and notifications belong to the gateway's clients.
    this.off = this.child.onMessage((m) => {
      const mine = "method" in m ? m.method === "ping" : typeof (m as { id?: unknown }).id === "number";
      if (mine) this.onmessage?.(m);
    });
    void this.child.exited.then(() => this.onclose?.());
  }
  async send(m: JSONRPCMessage) {
    this.child.send(m);
  }
  async close() {
    this.off?.();
  }
}

const tail = (lines: string[], n = 8) => lines.slice(-n).join("\n");

export function describeExit(e: ExitInfo): string {
  return e.reason ?? (e.signal ? `Killed by ${e.signal}` : `Exited with code ${e.code}`);
}

export class Supervisor {
  private readonly slots = new Map<string, Slot>();
  private closed = false;

  constructor(private readonly o: SupervisorOptions) {}

  get sandbox(): SandboxInfo {
    return this.o.sandbox.info;
  }

  /** Starts (or restarts) a deployment in the background; progress is written to its row. */
  start(id: string): void {
    if (this.closed || this.slots.has(id)) return;
    const slot: Slot = { id, stopping: false, failures: 0, everRan: false, lastLogs: [] };
    this.slots.set(id, slot);
    this.runSafely(slot);
  }

  /** Background work never rejects unobserved: a database error here is logged, not a crash of the platform. */
  private runSafely(slot: Slot) {
    slot.abort = new AbortController();
    slot.starting = this.run(slot, slot.abort.signal).catch((e: unknown) => this.o.log.error({ err: e, deployment: slot.id }, "deployment start failed"));
  }

  private async set(slot: Slot, fields: Parameters<typeof updateDeployment>[2]) {
    if (!slot.stopping) await updateDeployment(this.o.db, slot.id, fields).catch((e: unknown) => this.o.log.error({ err: e, deployment: slot.id }, "could not record deployment status"));
  }

  private async run(slot: Slot, signal: AbortSignal): Promise<void> {
    const row = await findDeployment(this.o.db, slot.id);
    if (!row || slot.stopping) return;
    const log = this.o.log.child({ deployment: slot.id });
    let child: Child | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const secrets = this.openSecrets(row.secrets);
      if (!slot.everRan) await this.set(slot, { status: "installing", statusDetail: null, exitCode: null });
      const prepared = await this.o.installer.prepare(slot.id, row.source as Source, signal);
      if (slot.stopping) return;
      // A restart keeps showing 'crashed' until it runs again.
      if (!slot.everRan) await this.set(slot, { status: "starting" });
      child = await Child.launch(this.o.sandbox, {
        argv: prepared.argv,
        cwd: prepared.workDir,
        writable: [prepared.workDir],
        readOnly: prepared.readOnly,
        identity: prepared.identity,
        network: true,
        // The platform's PATH/HOME win over anything in the user's keys.
        env: { ...secrets, ...childNetworkEnv(), PATH: SANDBOX_PATH, HOME: prepared.workDir },
        secrets: Object.values(secrets),
        limits: this.o.limits,
        label: slot.id,
        disk: this.o.volumes.kernelLimited ? { path: prepared.workDir, limitMb: this.o.diskMb } : undefined,
      });
      slot.child = child;
      await this.set(slot, { pid: child.pid, pidStart: child.pidStart });
      if (slot.stopping) return void child.stop();
      const c = child;
      const client = new Client({ name: "switchboard", version: "0.1.0" }, { capabilities: {} });
      const exitedEarly = c.exited.then((e) => Promise.reject(new Error(`${describeExit(e)} before answering initialize`)));
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`No answer to initialize within ${this.o.startTimeoutMs / 1000} s`)), this.o.startTimeoutMs);
      });
      await Promise.race([client.connect(new ChildTransport(c)), exitedEarly, timeout]);
      clearTimeout(timer);
      slot.client = client;
      await this.list(row, client).catch((e: unknown) => log.warn({ err: e }, "listing tools failed"));
      if (slot.stopping) return;
      slot.everRan = true;
      slot.runningSince = Date.now();
      await this.set(slot, { status: "running", statusDetail: null, exitCode: null, startedAt: new Date() });
      log.info({ pid: c.pid }, "deployment running");
      void c.exited
        .then((e) => this.onExit(slot, c, e))
        .catch((e: unknown) => log.error({ err: e }, "could not schedule a restart"));
    } catch (e) {
      clearTimeout(timer);
      // A process that died while starting: its exit code says more than the client's "connection closed".
      const exit = child && !child.running ? await child.exited : undefined;
      await child?.stop(500);
      if (child) slot.lastLogs = child.logs();
      if (slot.stopping) return;
      const reason = exit ? `${describeExit(exit)} while starting` : (e as Error).message;
      const detail = [reason, tail(slot.lastLogs)].filter(Boolean).join("\n");
      if (slot.everRan) return this.scheduleRestart(slot, exit ?? { code: null, signal: null }, detail);
      log.warn({ reason: (e as Error).message }, "deployment failed");
      await this.set(slot, { status: "failed", statusDetail: detail.slice(0, 4000), exitCode: exit?.code ?? null, pid: null, pidStart: null });
      this.slots.delete(slot.id);
    }
  }

  private openSecrets(sealed: string): Record<string, string> {
    try {
      return this.o.box.open(sealed);
    } catch {
      throw new Error("The deployment's keys cannot be decrypted (was SECRETS_KEY changed?). Stop it and deploy again.");
    }
  }

  private async list(row: DeploymentRow, client: Client) {
    const caps = client.getServerCapabilities() ?? {};
    const opts = { timeout: 15_000 };
    const [tools, prompts, resources] = await Promise.all([
      caps.tools ? client.listTools(undefined, opts).then((r) => r.tools) : [],
      caps.prompts ? client.listPrompts(undefined, opts).then((r) => r.prompts, () => []) : [],
      caps.resources ? client.listResources(undefined, opts).then((r) => r.resources, () => []) : [],
    ]);
    await saveCapabilities(this.o.db, { kind: row.serverKind as ServerKind, ref: row.serverRef }, { tools, prompts, resources });
  }

  private async onExit(slot: Slot, child: Child, exit: ExitInfo) {
    if (slot.stopping || this.closed || slot.child !== child) return;
    slot.lastLogs = child.logs();
    await this.scheduleRestart(slot, exit, tail(slot.lastLogs));
  }

  private async scheduleRestart(slot: Slot, exit: ExitInfo, logs: string) {
    slot.client = undefined;
    slot.child = undefined;
    if (slot.runningSince && Date.now() - slot.runningSince >= this.o.healthyResetMs) slot.failures = 0;
    slot.runningSince = undefined;
    slot.failures++;
    const delay = Math.min(this.o.backoffMs * 2 ** (slot.failures - 1), this.o.backoffMaxMs);
    const looping = slot.failures >= this.o.crashLoopAfter;
    const row = await findDeployment(this.o.db, slot.id);
    if (!row || slot.stopping) return;
    const detail = `${describeExit(exit)}${looping ? `; crashed ${slot.failures} times in a row` : ""}; restarting in ${delay >= 1000 ? `${Math.round(delay / 1000)} s` : `${delay} ms`}${logs ? `\n${logs}` : ""}`;
    this.o.log.warn({ deployment: slot.id, exit: describeExit(exit), failures: slot.failures, delayMs: delay }, "deployment crashed");
    await this.set(slot, { status: looping ? "crash_looping" : "crashed", statusDetail: detail.slice(0, 4000), exitCode: exit.code, restarts: row.restarts + 1, pid: null, pidStart: null });
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      if (!slot.stopping && !this.closed) this.runSafely(slot);
    }, delay);
  }

  /**
   * Ends whatever the slot runs: an install or build step is killed, the server stopped, and the
   * start in progress has given up before the deployment's directory and uid are taken away.
   */
  private async halt(slot: Slot): Promise<void> {
    slot.abort?.abort("the deployment was stopped");
    await slot.child?.stop();
    await slot.starting;
  }

  /** Stops the process group and removes the deployment (Stop Server). */
  async stop(id: string, opts: { keepRow?: boolean } = {}): Promise<void> {
    const slot = this.slots.get(id);
    if (slot) {
      slot.stopping = true;
      if (slot.timer) clearTimeout(slot.timer);
      await this.halt(slot);
      this.slots.delete(id);
    }
    if (!opts.keepRow) await deleteDeployment(this.o.db, id);
    await this.o.installer.remove(id).catch(() => {});
  }

  /**
   * After a platform restart (even kill -9): a process recorded for a deployment is killed only
   * if its pid still belongs to the same process (same start time), then every deployment that
   * should run is started once.
   */
  async recover(): Promise<number> {
    const rows = await listDeploymentsToRecover(this.o.db);
    let started = 0;
    for (const r of rows) {
      if (r.pid && r.pidStart && processStartTime(r.pid) === r.pidStart) {
        try {
          process.kill(-r.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      // A machine that lost a protection of its sandbox runs nobody's code but admins' (SANDBOX_INCOMPLETE).
      if (!hostingOpen(this.o.sandbox.info.complete, this.o.hostingPolicy, r.ownerIsAdmin)) {
        await updateDeployment(this.o.db, r.id, { status: "failed", statusDetail: DEPLOY_TEXT.hostingClosed, pid: null, pidStart: null });
        continue;
      }
      await updateDeployment(this.o.db, r.id, { pid: null, pidStart: null });
      this.start(r.id);
      started++;
    }
    return started;
  }

  client(id: string): Client | undefined {
    return this.slots.get(id)?.client;
  }

  /** The deployment's process once it has answered initialize (the gateway's way in), else undefined. */
  runningChild(id: string): Child | undefined {
    const slot = this.slots.get(id);
    return slot?.client && slot.child?.running ? slot.child : undefined;
  }

  /** Whether this platform process supervises the deployment (running, starting or waiting to restart). */
  supervises(id: string): boolean {
    return this.slots.has(id);
  }

  logs(id: string): string[] | null {
    const slot = this.slots.get(id);
    return slot ? (slot.child?.logs() ?? slot.lastLogs) : null;
  }

  rssBytes(id: string): number {
    return this.slots.get(id)?.child?.rssBytes() ?? 0;
  }

  /** SIGTERM: children stop gracefully before the platform exits; their rows stay for recovery. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.slots.values()].map(async (s) => {
        s.stopping = true;
        if (s.timer) clearTimeout(s.timer);
        await this.halt(s);
      }),
    );
    this.slots.clear();
    await this.o.volumes.unmountAll();
  }
}
