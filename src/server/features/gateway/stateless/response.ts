import type { ServerResponse } from "node:http";
import { sendJson } from "../wire/http.js";
import { serialize, type Msg } from "../protocol.js";
import { keepAlive, sseEvent, SSE_HEADERS, writeBounded, type OutboundBudget } from "../wire/sse.js";

/** The HTTP answer of one request: JSON, or SSE frames (no event ids: this revision does not resume) once something comes before the answer. */
export class LaneResponse {
  private streaming = false;
  private keepalive?: NodeJS.Timeout;
  bytes = 0;
  constructor(
    readonly res: ServerResponse,
    private readonly budget: OutboundBudget,
  ) {}

  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  frame(msg: Msg): void {
    const out = serialize(msg);
    if (!out || this.gone) return;
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, SSE_HEADERS);
      this.keepalive = keepAlive(this.res, this.budget);
    }
    this.bytes += Buffer.byteLength(out.text);
    writeBounded(this.res, sseEvent(out.text), this.budget);
  }

  /** The answer, as the last frame or the whole JSON body; what went out (an answer too deep becomes an error). */
  finish(msg: Msg, status = 200): Msg {
    clearInterval(this.keepalive);
    const { text, sent } = serialize(msg)!;
    this.bytes += Buffer.byteLength(text);
    if (this.gone) return sent;
    if (this.streaming) this.res.end(sseEvent(text));
    else sendJson(this.res, status, text);
    return sent;
  }
}
