import { describe, expect, it } from "vitest";
import { SLEEP_TEXT } from "~/shared/deployments.js";
import { readableFailure } from "./failure";

describe("readableFailure", () => {
  it("shows the gateway's sentence, not the JSON-RPC body around it", () => {
    const sentence = SLEEP_TEXT.wakeRefused("Free", 1, "http://h/deployments", "http://h/subscription");
    const raw = `Streamable HTTP error: Error POSTing to endpoint: ${JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: sentence }, id: null })}`;
    expect(readableFailure(raw)).toBe(sentence.slice(0, 500));
  });
  it("keeps a message without a body, and one whose body is cut, as it came", () => {
    expect(readableFailure("fetch failed")).toBe("fetch failed");
    expect(readableFailure('Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"mess')).toBe(
      'Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"mess',
    );
  });
});
