import type { IncomingMessage, ServerResponse } from "node:http";
import type { BodyBudget, InFlightScope } from "../in-flight.js";
import { asMessage, MEDIA, RPC, type Msg } from "../protocol.js";
import { GATEWAY_TEXT } from "../text.js";

// The HTTP side of both transports: JSON-RPC error answers, Accept checks and request bodies.

/** A JSON body, whole (`body` already serialized); `bodyless` (HEAD) sends the headers only. */
export function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}, bodyless = false) {
  res.writeHead(status, { "content-type": MEDIA.json, "content-length": Buffer.byteLength(body), ...headers });
  res.end(bodyless ? undefined : body);
}

export function rpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code: number = RPC.serverError,
  id: Msg["id"] = null,
) {
  sendJson(res, status, JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }), headers);
}

export const accepts = (accept: string | undefined, type: string) => !!accept && (accept.includes(type) || accept.includes("*/*"));

/** A request header, as the one string the gateway reads it as. */
export const header = (req: IncomingMessage, name: string) => req.headers[name] as string | undefined;

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A request refused for the bytes already in flight (in-flight.ts): 503 for the deployment's budget, 429 for the credential's. */
export function inFlightRefusal(res: ServerResponse, scope: InFlightScope, capBytes: number) {
  // The body is never read: Node discards what the client still sends.
  rpcError(res, scope === "deployment" ? 503 : 429, GATEWAY_TEXT.inFlight(scope, capBytes), { "retry-after": "1" });
}

async function readJson(req: IncomingMessage, limit: number, budget?: BodyBudget): Promise<{ raw: unknown; bytes: number }> {
  const declared = req.headers["content-length"] === undefined ? undefined : Number(req.headers["content-length"]);
  if ((declared ?? 0) > limit) throw new BodyError(413, GATEWAY_TEXT.tooLarge, RPC.invalidRequest);
  // A declared size was counted when the request was admitted; a body without one counts as it arrives.
  const counting = declared === undefined ? budget : undefined;
  const chunks: Buffer[] = [];
  // A large declared body is copied into one buffer as it arrives: its chunks and their concatenation are never held together.
  const whole = declared !== undefined && declared > 64 * 1024 ? Buffer.allocUnsafe(declared) : undefined;
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    const stop = (e: BodyError) => {
      counting?.end();
      req.removeAllListeners("data");
      req.resume();
      reject(e);
    };
    req.on("data", (chunk: Buffer) => {
      const at = size;
      size += chunk.length;
      const full = counting?.grow(chunk.length);
      if (size > limit || (whole && size > whole.length)) stop(new BodyError(413, GATEWAY_TEXT.tooLarge, RPC.invalidRequest));
      else if (full)
        stop(
          new BodyError(full === "deployment" ? 503 : 429, GATEWAY_TEXT.inFlight(full, counting!.capBytes), RPC.serverError, {
            "retry-after": "1",
          }),
        );
      else if (whole) chunk.copy(whole, at);
      else chunks.push(chunk);
    });
    req.once("end", resolve);
    req.once("error", reject);
  });
  const body = whole ? whole.subarray(0, size) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  try {
    return { raw: JSON.parse(body.toString("utf8")), bytes: body.length };
  } catch {
    throw new BodyError(400, GATEWAY_TEXT.parse, RPC.parseError);
  }
}

/** The request's one JSON-RPC message and its size in bytes, or undefined once the client has been answered with why not. */
export async function readMessage(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  budget?: BodyBudget,
): Promise<{ msg: Msg; bytes: number } | undefined> {
  let raw: unknown;
  let bytes: number;
  try {
    ({ raw, bytes } = await readJson(req, limit, budget));
  } catch (e) {
    if (e instanceof BodyError) return void rpcError(res, e.status, e.message, e.headers, e.code);
    throw e;
  }
  if (Array.isArray(raw)) return void rpcError(res, 400, GATEWAY_TEXT.batch, {}, RPC.invalidRequest);
  const msg = asMessage(raw);
  if (!msg) return void rpcError(res, 400, GATEWAY_TEXT.invalid, {}, RPC.invalidRequest);
  return { msg, bytes };
}
