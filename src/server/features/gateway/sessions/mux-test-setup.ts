import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpChannel } from "../../runtime/runner.js";
import { DefinitionReview } from "../../deployments/definitions/definitions.js";
import { TargetExposure } from "../exposure.js";
import type { MuxSession, Outlet } from "./mux-session.js";
import { NO_CAPABILITIES, type Msg } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";

// The mux tests' fakes (mux.test.ts, mux-exposure.test.ts): an MCP channel whose server the test
// plays, client sessions, outlets, and a deployment's exposure rules.

export function fakeChannel() {
  const sent: Msg[] = [];
  const listeners = new Set<(m: JSONRPCMessage) => void>();
  let exit!: (reason: string) => void;
  let dead = false;
  const channel: McpChannel = {
    send(msg) {
      if (dead) throw new Error("the server has exited");
      sent.push(msg as Msg);
    },
    onMessage(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    exited: new Promise<string>((r) => (exit = r)),
  };
  return {
    channel,
    sent,
    listeners,
    /** the server writes a message */
    reply: (m: object) => {
      for (const cb of listeners) cb(m as JSONRPCMessage);
    },
    exit: async (reason: string) => {
      dead = true;
      exit(reason);
      await new Promise((r) => setImmediate(r));
    },
  };
}

export function fakeSession(caps: Partial<typeof NO_CAPABILITIES> = {}, standalone = false) {
  const notified: Msg[] = [];
  const s: MuxSession & { notified: Msg[]; closed: boolean } = {
    inflight: new Map(),
    subscriptions: new Set(),
    capabilities: { ...NO_CAPABILITIES, ...caps },
    lastActive: Date.now(),
    standalone: standalone ? {} : undefined,
    hasOpenStream: standalone,
    notified,
    closed: false,
    notify: (m) => (notified.push(m), true),
    close: () => void (s.closed = true),
  };
  return s;
}

export function outlet() {
  const pushed: { msg: Msg; final: boolean }[] = [];
  const o: Outlet & { pushed: typeof pushed; abandoned: boolean } = {
    pushed,
    abandoned: false,
    push: (msg, final) => void pushed.push({ msg, final }),
    abandon: () => void (o.abandoned = true),
  };
  return o;
}

export const call = (id: number | string, method = "tools/call", params?: Msg["params"]): Msg => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params ? { params } : {}),
});

/** The exposure rules of a deployment with these hidden tools and pins; `recorded` collects what it would write. */
export function exposure(
  hiddenTools: string[],
  review = DefinitionReview.NONE,
  recorded: { kind: string; names: string[]; complete: boolean }[] = [],
) {
  const target = { hiddenTools: new Set(hiddenTools), review } as unknown as GatewayTarget;
  return new TargetExposure(target, (_t, kind, defs, complete) => recorded.push({ kind, names: defs.map((d) => d.name), complete }));
}
