import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { MAX_STATE_LENGTH } from "./limits.js";

// requestState (2026-07-28): what a client sends back with the answers to the server's questions.
// It names the call and its round and when it expires, HMAC-sealed with a key of this process (the
// server's call it continues lives here too). Opaque to the client; a forged, altered, expired or
// oversized one opens to nothing.

export interface RequestState {
  call: string;
  round: number;
}

export class RequestStates {
  private readonly key = randomBytes(32);

  constructor(private readonly ttlMs: number) {}

  seal(s: RequestState): string {
    const payload = Buffer.from(JSON.stringify({ c: s.call, r: s.round, x: Date.now() + this.ttlMs })).toString("base64url");
    return `v1.${payload}.${this.mac(payload)}`;
  }

  open(state: unknown): RequestState | undefined {
    if (typeof state !== "string" || state.length > MAX_STATE_LENGTH) return undefined;
    const parts = state.split(".");
    const [v, payload, mac] = parts;
    if (parts.length !== 3 || v !== "v1" || !payload || !mac) return undefined;
    // Compared as text: base64 decoding ignores a last character's spare bits, so decoded bytes would accept variants of the seal.
    const want = Buffer.from(this.mac(payload));
    const got = Buffer.from(mac);
    if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
    try {
      const p = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { c?: unknown; r?: unknown; x?: unknown };
      if (typeof p.x !== "number" || p.x < Date.now() || typeof p.r !== "number") return undefined;
      return { call: String(p.c), round: p.r };
    } catch {
      return undefined;
    }
  }

  private mac(payload: string): string {
    return createHmac("sha256", this.key).update(payload).digest("base64url");
  }
}
