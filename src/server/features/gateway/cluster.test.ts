import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clusterAuthorized, CLUSTER_HEADER } from "./cluster.js";

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
