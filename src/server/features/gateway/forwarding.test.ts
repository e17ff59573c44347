import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clusterAuthorized, CLUSTER_HEADER } from "./forwarding.js";

// A runner's internal port trusts a request only with the cluster secret. Whatever else arrives in
// the header (any length, bytes Node reads as latin1) is a wrong secret: never an exception, which
// in a request listener would take the runner down.
const secret = "s3cret-".repeat(6);
const req = (value: string | string[] | undefined) => ({ headers: { [CLUSTER_HEADER]: value } }) as unknown as IncomingMessage;

describe("the cluster secret", () => {
  it("accepts exactly the secret", () => {
    expect(clusterAuthorized(req(secret), secret)).toBe(true);
  });

  it("refuses everything else without throwing: missing, repeated, shorter, longer, same length in other bytes", () => {
    const sameLengthLatin1 = `\u00e9${secret.slice(1)}`;
    for (const v of [
      undefined,
      "",
      [secret, secret],
      secret.slice(1),
      `${secret}x`,
      sameLengthLatin1,
      "\u00ff".repeat(secret.length),
      secret.toUpperCase(),
    ]) {
      expect(() => clusterAuthorized(req(v), secret)).not.toThrow();
      expect(clusterAuthorized(req(v), secret)).toBe(false);
    }
  });
});

describe("a front gateway's forwarding of a body that declares no size", () => {
  const MB = 1024 * 1024;

  /** A runner that takes whatever arrives (and counts it), a front gateway that forwards there with a budget of 8 MB. */
  async function setUp() {
    const { default: http } = await import("node:http");
    const { InFlight } = await import("./in-flight.js");
    const { Forwarder } = await import("./forwarding.js");
    let received = 0;
    const runner = http.createServer((req, res) => {
      req.on("data", (c: Buffer) => (received += c.length));
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    });
    await new Promise<void>((r) => runner.listen(0, "127.0.0.1", r));
    const inflight = new InFlight(8 * MB);
    const log = { warn: () => {}, error: () => {}, info: () => {} } as never;
    const forwarder = new Forwarder({
      secret,
      log,
      forget: () => {},
      count: () => {},
      maxBodyBytes: 8 * MB,
      budgetOf: (r) => inflight.of(r),
    });
    const target = { id: "d1", runnerUrl: `http://127.0.0.1:${(runner.address() as { port: number }).port}` } as never;
    const front = http.createServer((req, res) => {
      const declared = Number(req.headers["content-length"]);
      const t = inflight.admit(req, "d1", "k1", Number.isFinite(declared) ? declared : 0);
      if (typeof t === "string") return void res.writeHead(503).end();
      res.once("close", () => t.release());
      forwarder.pass(req, res, target, { userId: "u", keyHash: "k1" }, { proxyId: "p" });
    });
    await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
    const port = (front.address() as { port: number }).port;
    /** POSTs `mb` megabytes in 64 KB writes, Content-Length declared or not; resolves with the status once answered. */
    const post = (mb: number, declare: boolean) =>
      new Promise<number>((resolve) => {
        const chunk = Buffer.alloc(64 * 1024, "x");
        const n = (mb * MB) / chunk.length;
        const req = http.request(
          { host: "127.0.0.1", port, path: "/", method: "POST", headers: declare ? { "content-length": mb * MB } : {} },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", () => {});
        let sent = 0;
        const more = () => {
          while (sent < n) {
            sent++;
            if (!req.write(chunk)) return void req.once("drain", more);
          }
          req.end();
        };
        more();
      });
    const close = () => {
      front.closeAllConnections();
      runner.closeAllConnections();
      front.close();
      runner.close();
    };
    const admit = (bytes: number) => {
      const t = inflight.admit({} as IncomingMessage, "d1", "k2", bytes);
      if (typeof t === "string") throw new Error(t);
      return t;
    };
    return { post, close, admit, received: () => received, held: () => inflight.held("d1") };
  }

  it("holds it to the body limit, and refuses it once the deployment's bytes in flight no longer fit, before the runner has it all", async () => {
    const s = await setUp();
    try {
      expect(await s.post(12, false)).toBe(413);
      expect(s.received()).toBeLessThanOrEqual(8 * MB + 64 * 1024);
      // 6 MB of another request of the deployment's in flight, then 4 MB without a size: past 8 MB it is refused.
      const other = s.admit(6 * MB);
      expect(await s.post(4, false)).toBe(503);
      other.release();
      await new Promise((r) => setTimeout(r, 50));
      expect(s.held()).toBe(0);
    } finally {
      s.close();
    }
  }, 30_000);
});
