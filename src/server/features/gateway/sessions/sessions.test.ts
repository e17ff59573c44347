import { afterEach, describe, expect, it } from "vitest";
import type { Config } from "../../../config.js";
import type { Db } from "../../../db/client.js";
import type { Logger } from "../../../log.js";
import { KeyRevocations } from "../../api-keys/revocations.js";
import type { McpChannel } from "../../runtime/runner.js";
import { Session } from "./session.js";
import { Sessions } from "./sessions.js";

// The session table against a fake runner: one Mux per channel, sessions only their owner can
// find, and room made by the longest-idle session.

const channel = (): McpChannel => ({ send() {}, onMessage: () => () => {}, exited: new Promise<string>(() => {}) });
const config = { GATEWAY_SESSION_IDLE_MS: 60_000, GATEWAY_MAX_SESSIONS: 2, GATEWAY_REQUEST_TIMEOUT_MS: 60_000 } as Config;
const log = { warn() {}, error() {} } as unknown as Logger;

let table: Sessions | undefined;
afterEach(() => table?.close());

function setup(channels: Record<string, McpChannel>) {
  table = new Sessions({
    config,
    db: {} as Db,
    log,
    runner: { channel: (id) => channels[id] },
    revocations: new KeyRevocations(),
    oauth: { verify: () => Promise.resolve(null) },
  });
  return table;
}

describe("Sessions", () => {
  it("keeps one Mux per channel and none for a server that is not running", () => {
    const ch = channel();
    const t = setup({ d1: ch });
    expect(t.mux("d1")).toBe(t.mux("d1"));
    expect(t.mux("d2")).toBeUndefined();
  });

  it("finds a session only for its user, deployment and transport", () => {
    const t = setup({ d1: channel() });
    const s = new Session("u1", "h", "d1", t.mux("d1")!, false);
    t.add(s);
    expect(t.find(s.id, "u1", "d1", false)).toBe(s);
    expect(t.find(s.id, "u2", "d1", false)).toBeUndefined();
    expect(t.find(s.id, "u1", "d2", false)).toBeUndefined();
    expect(t.find(s.id, "u1", "d1", true)).toBeUndefined();
    t.end(s);
    expect(t.find(s.id, "u1", "d1", false)).toBeUndefined();
    expect(t.size).toBe(0);
  });

  it("makes room by ending the longest-idle session without calls", () => {
    const t = setup({ d1: channel() });
    const mux = t.mux("d1")!;
    const older = new Session("u1", "h", "d1", mux, false);
    const newer = new Session("u1", "h", "d1", mux, false);
    older.lastActive = 1;
    t.add(older);
    t.add(newer);
    expect(t.makeRoom(mux)).toBe(true);
    expect(older.closed).toBe(true);
    expect(t.has(newer)).toBe(true);
    newer.inflight.set("n1", "sb1");
    t.add(new Session("u1", "h", "d1", mux, false));
    const busy = [...mux.sessions].find((s) => s !== newer)!;
    busy.inflight.set("n2", "sb2");
    expect(t.makeRoom(mux)).toBe(false);
  });
});
