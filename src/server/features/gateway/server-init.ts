import { GATEWAY_CLIENT, isSupportedVersion, LATEST_VERSION, RPC, type Msg } from "./protocol.js";

// The gateway is the hosted server's one MCP client: it initializes the server once per protocol
// revision its clients ask for, and answers every later initialize of that revision from the
// result. Its own requests carry ids `sbi<n>`, apart from the ids of forwarded calls.

export class ServerInit {
  private seq = 0;
  /** the gateway's own requests in flight -> who waits for the answer */
  private readonly waiting = new Map<string, (m: Msg) => void>();
  /** initialize results per protocol version */
  private readonly results = new Map<string, Promise<Msg>>();

  /** `send` returns false when the server can no longer be written to. */
  constructor(private readonly send: (msg: Msg) => boolean) {}

  /**
   * The server's initialize result for the client's protocol revision (a revision the gateway does
   * not speak is asked as its latest): asked once per revision, then answered from the cache.
   */
  initialize(params: Msg["params"]): Promise<Msg> {
    const asked = String(params?.protocolVersion ?? "");
    const version = isSupportedVersion(asked) ? asked : LATEST_VERSION;
    let result = this.results.get(version);
    if (!result) {
      result = this.request("initialize", { protocolVersion: version, ...GATEWAY_CLIENT }).then((r) => {
        const agreed = (r.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
        if (!r.error && !(typeof agreed === "string" && isSupportedVersion(agreed))) {
          return {
            jsonrpc: "2.0",
            error: {
              code: RPC.serverError,
              message: `The MCP server answered with a protocol version the gateway does not speak (${String(agreed).slice(0, 40)})`,
            },
          } as Msg;
        }
        if (!r.error) this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
        return r;
      });
      result.then(
        (r) => r.error && this.results.delete(version),
        () => this.results.delete(version),
      );
      this.results.set(version, result);
    }
    return result;
  }

  private request(method: string, params: Msg["params"], timeoutMs = 30_000): Promise<Msg> {
    const id = `sbi${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`The MCP server did not answer ${method} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      if (!this.send({ jsonrpc: "2.0", id, method, params })) {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(new Error("The MCP server has exited"));
      }
    });
  }

  /** An answer from the server: true when it answers one of the gateway's own requests. */
  answered(id: string, m: Msg): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    this.waiting.delete(id);
    waiting(m);
    return true;
  }

  /** The server exited: every request still waiting gets an error answer. */
  stopped(reason: string): void {
    for (const cb of this.waiting.values())
      cb({ jsonrpc: "2.0", error: { code: RPC.serverError, message: `The MCP server stopped (${reason})` } });
    this.waiting.clear();
  }
}
