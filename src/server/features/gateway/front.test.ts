import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../log.js";
import { FrontStep } from "./front.js";
import { InFlight } from "./in-flight.js";
import type { GatewayTarget } from "./repo.js";
import type { Route } from "./steps.js";

// A front gateway's request to a deployment on its way up after a wake waits for it, whatever
// status it was looked up in. The wake of a deployment passes through queued, installing (its
// runner finds the volume and skips the install) and starting; a request looked up in 'installing'
// once went straight on to the runner, which had no channel yet and answered 503 "starting".

const log = createLogger({ level: "silent", pretty: false });
const route: Route = { kind: "mcp", proxyId: "p1", query: "", started: 0 };

function step() {
  const woken: string[] = [];
  const running = (t: GatewayTarget): GatewayTarget => ({ ...t, status: "running", runnerUrl: "http://127.0.0.1:1" });
  let last: GatewayTarget | undefined;
  const front = new FrontStep(
    {
      log,
      wake: {
        wake: async (id) => {
          woken.push(id);
          return { ok: true };
        },
      },
    },
    {
      admission: { forget: () => undefined, refresh: async () => (last ? running(last) : undefined) },
      inflight: new InFlight(1024 * 1024),
      maxBodyBytes: 1024 * 1024,
      answersHere: () => false,
    },
  );
  const pass = (status: string) => {
    last = {
      id: "d1",
      proxyId: "p1",
      userId: "u1",
      serverKind: "catalog",
      serverRef: "s1",
      runnerUrl: status === "sleeping" ? null : "http://127.0.0.1:1",
      status,
      hiddenTools: new Set(),
      review: { approved: true } as never,
    } as GatewayTarget;
    const req = { method: "GET", headers: {} } as IncomingMessage;
    return front.pass(req, {} as ServerResponse, last, { userId: "u1", keyHash: "k" }, route);
  };
  return { pass, woken };
}

describe("a front gateway's request to a deployment being woken", () => {
  it.each(["sleeping", "queued", "installing", "starting"])(
    "looked up while %s, waits for it and goes on to where it runs",
    async (status) => {
      const s = step();
      const t = await s.pass(status);
      expect(s.woken).toEqual(["d1"]);
      expect(t?.status).toBe("running");
    },
  );

  it.each(["running", "crashed", "crash_looping", "failed"])(
    "looked up while %s, goes on as it is: nothing to wait for",
    async (status) => {
      const s = step();
      const t = await s.pass(status);
      expect(s.woken).toEqual([]);
      expect(t?.status).toBe(status);
    },
  );
});
