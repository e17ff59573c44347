// What the playground shows when it cannot connect: the gateway's own sentence, never the raw
// JSON-RPC body the SDK's error message carries ("Streamable HTTP error: Error POSTing to
// endpoint: {"jsonrpc":"2.0","error":{...}}").

/** The readable part of a connection failure's message (at most 500 characters). */
export function readableFailure(message: string): string {
  const at = message.indexOf('{"jsonrpc"');
  if (at >= 0) {
    try {
      const body = JSON.parse(message.slice(at)) as { error?: { message?: unknown } };
      if (typeof body.error?.message === "string" && body.error.message) return body.error.message.slice(0, 500);
    } catch {
      // not a whole JSON body: shown as it came
    }
  }
  return message.slice(0, 500);
}
