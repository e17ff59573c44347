import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

// A server reached over HTTP holds one session for the deployment, and a session is initialized
// once: a second initialize is refused ("Server already initialized"). The platform initializes
// it first (handshake.ts); the gateway initializes each server again for its clients' revision,
// as it may a stdio server. Here those later initializes are answered from the session's own
// result, and their `initialized` notifications are not sent on.

export class OneSession {
  private result: unknown;
  private asked: string | number | undefined;
  private initializedSent = false;

  /** A message on its way to the server: true when it was answered here (`reply`) and must not be sent. */
  intercept(m: JSONRPCMessage, reply: (answer: JSONRPCMessage) => void): boolean {
    const method = (m as { method?: unknown }).method;
    const id = (m as { id?: unknown }).id;
    if (method === "notifications/initialized") {
      if (this.initializedSent) return true;
      this.initializedSent = true;
      return false;
    }
    if (method !== "initialize" || (typeof id !== "string" && typeof id !== "number")) return false;
    if (this.result === undefined) {
      this.asked = id;
      return false;
    }
    reply({ jsonrpc: "2.0", id, result: this.result } as JSONRPCMessage);
    return true;
  }

  /** A message from the server: the answer to the first initialize is the session's. */
  seen(m: JSONRPCMessage): void {
    if (this.asked === undefined || (m as { id?: unknown }).id !== this.asked) return;
    const result = (m as { result?: unknown }).result;
    if (result !== undefined) this.result = result;
    this.asked = undefined;
  }
}
