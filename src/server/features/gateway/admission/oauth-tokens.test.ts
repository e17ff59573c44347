import { afterEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "~/server/log.js";
import { KeyRevocations } from "../../api-keys/revocations.js";
import { TokenCheck, type AccessGrant } from "./oauth-tokens.js";
import { challenge } from "../resource-metadata.js";

// The gateway's memory of verified OAuth access tokens, against a fake authorization server:
// remembered for the TTL, asked again after any revocation, never past the token's expiry; and
// 'last used' recorded at most once a minute per grant.

const log = { warn() {}, error() {} } as unknown as Logger;
const grant = (over: Partial<AccessGrant> = {}): AccessGrant => ({
  userId: "u1",
  clientId: "c1",
  resource: "https://sb.example/p/mcp",
  scopes: ["mcp"],
  expiresAt: new Date(Date.now() + 3_600_000),
  ...over,
});

function setup(answer: () => AccessGrant | null) {
  const revocations = new KeyRevocations();
  const oauth = { verify: vi.fn((_token: string) => Promise.resolve(answer())), touch: vi.fn((_g: AccessGrant) => Promise.resolve()) };
  return { revocations, oauth, check: new TokenCheck({ oauth, revocations, log }, 10_000, 3) };
}

afterEach(() => vi.useRealTimers());

describe("TokenCheck", () => {
  it("asks the authorization server once per TTL, and again after any revocation", async () => {
    vi.useFakeTimers();
    let current: AccessGrant | null = grant();
    const { check, oauth, revocations } = setup(() => current);
    expect(await check.grant("t", "h")).toEqual(current);
    expect(await check.grant("t", "h")).toEqual(current);
    expect(oauth.verify).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_001);
    await check.grant("t", "h");
    expect(oauth.verify).toHaveBeenCalledTimes(2);
    current = null; // revoked
    revocations.revoked();
    expect(await check.grant("t", "h")).toBeUndefined();
    expect(oauth.verify).toHaveBeenCalledTimes(3);
  });

  it("refuses a remembered token once it expires, and never remembers an unknown one", async () => {
    vi.useFakeTimers();
    const g = grant({ expiresAt: new Date(Date.now() + 5_000) });
    const { check, oauth } = setup(() => g);
    expect(await check.grant("t", "h")).toBe(g);
    vi.advanceTimersByTime(5_000);
    expect(await check.grant("t", "h")).toBeUndefined();
    const unknown = setup(() => null);
    expect(await unknown.check.grant("x", "hx")).toBeUndefined();
    expect(await unknown.check.grant("x", "hx")).toBeUndefined();
    expect(unknown.oauth.verify).toHaveBeenCalledTimes(2);
    expect(oauth.verify).toHaveBeenCalledTimes(1); // the expiry alone refused it
  });

  it("records a grant's use at most once a minute, each grant on its own", () => {
    vi.useFakeTimers();
    const { check, oauth } = setup(() => null);
    const a = grant();
    const b = grant({ resource: "https://sb.example/q/mcp" });
    check.used(a);
    check.used(a);
    check.used(b);
    expect(oauth.touch).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(60_000);
    check.used(a);
    expect(oauth.touch).toHaveBeenCalledTimes(3);
  });

  it("a failing 'last used' write is logged, not thrown", async () => {
    const warn = vi.fn();
    const oauth = { verify: () => Promise.resolve(null), touch: () => Promise.reject(new Error("db down")) };
    new TokenCheck({ oauth, revocations: new KeyRevocations(), log: { warn } as unknown as Logger }, 10_000, 10).used(grant());
    await vi.waitFor(() => expect(warn).toHaveBeenCalled());
  });
});

describe("the deployment as a protected resource", () => {
  it("names its metadata in every 401 challenge, with invalid_token when a token was refused", () => {
    const id = "0123456789abcdef0123456789abcdef";
    expect(challenge("https://sb.example", id, false)).toBe(
      `Bearer realm="mcp", resource_metadata="https://sb.example/.well-known/oauth-protected-resource/${id}/mcp"`,
    );
    expect(challenge("https://sb.example", id, true)).toBe(
      `Bearer realm="mcp", resource_metadata="https://sb.example/.well-known/oauth-protected-resource/${id}/mcp", error="invalid_token"`,
    );
  });
});
