import type { IncomingMessage, ServerResponse } from "node:http";
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
  ) {
    super(message);
  }
}

async function readJson(req: IncomingMessage, limit: number): Promise<{ raw: unknown; bytes: number }> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new BodyError(413, GATEWAY_TEXT.tooLarge, RPC.invalidRequest);
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        reject(new BodyError(413, GATEWAY_TEXT.tooLarge, RPC.invalidRequest));
      } else chunks.push(chunk);
    });
    req.once("end", resolve);
    req.once("error", reject);
  });
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
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
): Promise<{ msg: Msg; bytes: number } | undefined> {
  let raw: unknown;
  let bytes: number;
  try {
    ({ raw, bytes } = await readJson(req, limit));
  } catch (e) {
    if (e instanceof BodyError) return void rpcError(res, e.status, e.message, {}, e.code);
    throw e;
  }
  if (Array.isArray(raw)) return void rpcError(res, 400, GATEWAY_TEXT.batch, {}, RPC.invalidRequest);
  const msg = asMessage(raw);
  if (!msg) return void rpcError(res, 400, GATEWAY_TEXT.invalid, {}, RPC.invalidRequest);
  return { msg, bytes };
}
