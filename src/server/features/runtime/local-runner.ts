import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SandboxInfo } from "~/shared/deployments.js";
import type { Logger } from "../../log.js";
import { Child, processStartTime, type ExitInfo } from "./process/child.js";
import { channelOf, describeExit, initialize, listing } from "./process/handshake.js";
import { IMAGE_PATH, IMAGE_VOLUME } from "./sources/image/image-cache.js";
import { childNetworkEnv } from "./sources/install-env.js";
import type { Installer } from "./sources/installer.js";
import { RemoteLink, type RemoteOptions } from "./links/remote-link.js";
import { ToolsetLink, type ToolsetOptions } from "./links/toolset-link.js";
import type { DeploymentSpec, FlowLimits, McpChannel, OutputStats, Runner, RunnerEvent, RunnerEvents, ServerLink } from "./runner.js";
import { SANDBOX_PATH } from "./sandbox/bwrap.js";
import type { Limits, Sandbox } from "./sandbox/index.js";
import type { Volumes } from "./sandbox/volumes.js";

// The Runner of this machine: each deployment is a supervised process in the bubblewrap sandbox.
// install -> start -> initialize and listing -> running; a crash is restarted with exponential
// back-off; stop kills the whole process group. What happens is reported as events; the
// deployments feature records them.

export interface LocalRunnerOptions {
  log: Logger;
  installer: Installer;
  sandbox: Sandbox;
  volumes: Volumes;
  limits: Limits;
  diskMb: number;
  /** what each server may make the platform hold and do for it (DEFAULT_FLOW when not given) */
  flow?: FlowLimits;
  startTimeoutMs: number;
  backoffMs: number;
  backoffMaxMs: number;
  healthyResetMs: number;
  crashLoopAfter: number;
  /** how connections reach remote servers (absent: this runner runs no connection) */
  remote?: RemoteOptions;
  /** how toolsets watch their members */
  toolset?: ToolsetOptions;
}

interface Slot {
  spec: DeploymentSpec;
  child?: ServerLink;
  channel?: McpChannel;
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

const tail = (lines: string[], n = 8) => lines.slice(-n).join("\n");

export class LocalRunner implements Runner {
  private readonly slots = new Map<string, Slot>();
  private closed = false;
  private events: RunnerEvents = async () => {};

  constructor(private readonly o: LocalRunnerOptions) {}

  get sandbox(): SandboxInfo {
    return this.o.sandbox.info;
  }

  onEvents(handler: RunnerEvents): void {
    this.events = handler;
  }

  start(spec: DeploymentSpec): void {
    if (this.closed || this.slots.has(spec.id)) return;
    const slot: Slot = { spec, stopping: false, failures: 0, everRan: false, lastLogs: [] };
    this.slots.set(spec.id, slot);
    this.runSafely(slot);
  }

  /** Background work never rejects unobserved: an error here is logged, not a crash of the platform. */
  private runSafely(slot: Slot) {
    slot.abort = new AbortController();
    slot.starting = this.run(slot, slot.abort.signal).catch((e: unknown) =>
      this.o.log.error({ err: e, deployment: slot.spec.id }, "deployment start failed"),
    );
  }

  /** Reports an event unless the deployment is being stopped; a failing receiver is logged, never fatal. */
  private async emit(slot: Slot, event: RunnerEvent) {
    if (slot.stopping) return;
    await this.events(slot.spec.id, event).catch((e: unknown) =>
      this.o.log.error({ err: e, deployment: slot.spec.id }, "could not record deployment status"),
    );
  }

  private async run(slot: Slot, signal: AbortSignal): Promise<void> {
    const { id } = slot.spec;
    const log = this.o.log.child({ deployment: id });
    let child: ServerLink | undefined;
    try {
      const kind = slot.spec.source.kind;
      child =
        kind === "remote" ? await this.connect(slot) : kind === "toolset" ? await this.combine(slot) : await this.launch(slot, signal);
      if (!child) return;
      slot.child = child;
      const flooding = child;
      flooding.onFlood((notice) => void this.failFlooding(slot, flooding, notice));
      slot.channel = channelOf(child);
      if (child.pid !== null) await this.emit(slot, { type: "spawned", pid: child.pid, pidStart: child.pidStart });
      if (slot.stopping) return void child.stop();
      const c = child;
      const client = await initialize(c, this.o.startTimeoutMs);
      slot.client = client;
      const listed = await listing(client).catch((e: unknown) => void log.warn({ err: e }, "listing tools failed"));
      if (slot.stopping) return;
      slot.everRan = true;
      slot.runningSince = Date.now();
      await this.emit(slot, { type: "running", listing: listed ?? null });
      log.info({ pid: c.pid }, "deployment running");
      void c.exited.then((e) => this.onExit(slot, c, e)).catch((e: unknown) => log.error({ err: e }, "could not schedule a restart"));
    } catch (e) {
      // A process that died while starting: its exit code says more than the client's "connection closed".
      const exit = child && !child.running ? await child.exited : undefined;
      await child?.stop(500);
      if (child) slot.lastLogs = child.logs();
      if (slot.stopping) return;
      // A connection's sign-in the server no longer takes: no restart can mend it, the owner signs in again.
      const final = exit?.final === true || (e as { final?: unknown }).final === true;
      const reason = exit?.final ? exit.reason : exit ? `${describeExit(exit)} while starting` : (e as Error).message;
      // The owner's next step, alone: nothing in the output would help them more.
      const detail = final ? (reason ?? "") : [reason, tail(slot.lastLogs)].filter(Boolean).join("\n");
      if (slot.everRan && !final) return this.scheduleRestart(slot, exit ?? { code: null, signal: null }, detail);
      log.warn({ reason: (e as Error).message }, "deployment failed");
      await this.emit(slot, { type: "failed", detail: detail.slice(0, 4000), code: exit?.code ?? null });
      this.slots.delete(id);
    }
  }

  /** A connection: the link to its remote server, with the owner's headers (its keys). */
  private async connect(slot: Slot): Promise<ServerLink | undefined> {
    const src = slot.spec.source;
    if (src.kind !== "remote") return undefined;
    if (!slot.everRan) await this.emit(slot, { type: "starting" });
    if (!this.o.remote) throw new Error("This runner does not connect to remote servers");
    return RemoteLink.open({ url: src.url, transport: src.transport, headers: slot.spec.env, auth: slot.spec.auth }, this.o.remote);
  }

  /** A toolset: its own server, answering from its members through their gateway. */
  private async combine(slot: Slot): Promise<ServerLink | undefined> {
    if (!slot.everRan) await this.emit(slot, { type: "starting" });
    if (!slot.spec.toolset) throw new Error("The toolset's members were not given");
    return ToolsetLink.open(slot.spec.toolset, this.o.toolset ?? { checkMs: 5000, requestTimeoutMs: 30_000, callTimeoutMs: 300_000 });
  }

  /** A hosted server: installed (or built), then started in the sandbox; undefined when it was stopped meanwhile. */
  private async launch(slot: Slot, signal: AbortSignal): Promise<Child | undefined> {
    const { id, env, source } = slot.spec;
    if (source.kind === "remote" || source.kind === "toolset") return undefined;
    if (!slot.everRan) await this.emit(slot, { type: "installing" });
    const prepared = await this.o.installer.prepare(id, source, signal);
    if (slot.stopping) return undefined;
    // A restart keeps showing 'crashed' until it runs again.
    if (!slot.everRan) await this.emit(slot, { type: "starting" });
    const image = prepared.image;
    return Child.launch(this.o.sandbox, {
      argv: prepared.argv,
      cwd: prepared.cwd ?? prepared.workDir,
      // An image's tree (under its own writable layer) is its `/`, and its volume's data is at /data there.
      root: image?.root,
      rootWritable: image?.writable,
      writable: image ? [] : [prepared.workDir],
      binds: image ? [{ source: image.data, dest: IMAGE_VOLUME }] : [],
      // An image that speaks HTTP is reached through a relay into its own network, never the host's.
      relay: image?.port ? { socket: await this.o.volumes.relaySocket(id), port: image.port } : undefined,
      startTimeoutMs: this.o.startTimeoutMs,
      readOnly: prepared.readOnly,
      identity: prepared.identity,
      network: true,
      // The platform's PATH/HOME win over anything in the user's keys; the keys over an image's Env.
      env: image
        ? { ...image.env, ...env, ...childNetworkEnv(), PATH: image.env.PATH ?? IMAGE_PATH, HOME: IMAGE_VOLUME }
        : { ...env, ...childNetworkEnv(), PATH: SANDBOX_PATH, HOME: prepared.workDir },
      secrets: Object.values(env),
      limits: this.o.limits,
      label: id,
      disk: this.o.volumes.kernelLimited ? { path: prepared.workDir, limitMb: this.o.diskMb } : undefined,
      flow: this.o.flow,
      notes: prepared.notes,
    });
  }

  /** A server that floods the platform with output is stopped for good (no restart): failed, with why. */
  private async failFlooding(slot: Slot, child: ServerLink, notice: string) {
    if (slot.stopping || this.closed || slot.child !== child) return;
    this.o.log.warn({ deployment: slot.spec.id }, "deployment stopped: it floods the platform with output");
    await this.emit(slot, { type: "failed", detail: [notice, tail(child.logs())].filter(Boolean).join("\n").slice(0, 4000), code: null });
    await this.halt(slot);
    this.slots.delete(slot.spec.id);
  }

  private async onExit(slot: Slot, child: ServerLink, exit: ExitInfo) {
    if (slot.stopping || this.closed || slot.child !== child) return;
    slot.lastLogs = child.logs();
    if (exit.final) {
      // Nothing a restart could mend: the owner has to act (sign in to the server again).
      slot.client = slot.child = slot.channel = undefined;
      await this.emit(slot, { type: "failed", detail: (exit.reason ?? describeExit(exit)).slice(0, 4000), code: null });
      this.slots.delete(slot.spec.id);
      return;
    }
    await this.scheduleRestart(slot, exit, tail(slot.lastLogs));
  }

  private async scheduleRestart(slot: Slot, exit: ExitInfo, logs: string) {
    slot.client = undefined;
    slot.child = undefined;
    slot.channel = undefined;
    if (slot.runningSince && Date.now() - slot.runningSince >= this.o.healthyResetMs) slot.failures = 0;
    slot.runningSince = undefined;
    slot.failures++;
    const delay = Math.min(this.o.backoffMs * 2 ** (slot.failures - 1), this.o.backoffMaxMs);
    const looping = slot.failures >= this.o.crashLoopAfter;
    const detail = `${describeExit(exit)}${looping ? `; crashed ${slot.failures} times in a row` : ""}; restarting in ${delay >= 1000 ? `${Math.round(delay / 1000)} s` : `${delay} ms`}${logs ? `\n${logs}` : ""}`;
    this.o.log.warn({ deployment: slot.spec.id, exit: describeExit(exit), failures: slot.failures, delayMs: delay }, "deployment crashed");
    await this.emit(slot, {
      type: "crashed",
      exit: { reason: describeExit(exit), code: exit.code },
      detail: detail.slice(0, 4000),
      restartInMs: delay,
      looping,
    });
    if (slot.stopping || this.closed) return;
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
    slot.stopping = true;
    if (slot.timer) clearTimeout(slot.timer);
    slot.abort?.abort("the deployment was stopped");
    await slot.child?.stop();
    await slot.starting;
  }

  async stop(id: string, opts: { keep?: boolean } = {}): Promise<void> {
    const slot = this.slots.get(id);
    if (slot) {
      await this.halt(slot);
      this.slots.delete(id);
    }
    // Asleep, its volume waits for the next start; stopped, it goes.
    if (opts.keep) await this.o.installer.suspend(id).catch(() => {});
    else await this.o.installer.remove(id).catch(() => {});
  }

  reap(pid: number, pidStart: string): void {
    if (processStartTime(pid) !== pidStart) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }

  /** The platform's own MCP client of a running deployment (tests call tools through it). */
  client(id: string): Client | undefined {
    return this.slots.get(id)?.client;
  }

  channel(id: string): McpChannel | undefined {
    const slot = this.slots.get(id);
    return slot?.client && slot.child?.running ? slot.channel : undefined;
  }

  runs(id: string): boolean {
    return this.slots.has(id);
  }

  logs(id: string): string[] | null {
    const slot = this.slots.get(id);
    return slot ? (slot.child?.logs() ?? slot.lastLogs) : null;
  }

  rssBytes(id: string): number {
    return this.slots.get(id)?.child?.rssBytes() ?? 0;
  }

  outputStats(id: string): OutputStats | undefined {
    return this.slots.get(id)?.child?.outputStats();
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots.values()].map((s) => this.halt(s)));
    this.slots.clear();
    await this.o.volumes.unmountAll();
  }
}
