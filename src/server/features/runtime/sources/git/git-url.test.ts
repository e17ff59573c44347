import { beforeEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../../../../errors.js";
import { GIT_TEXT, assertPublicGitHost, parseGitUrl } from "./git-url.js";

// Hoisted above the imports, so git-url.ts (and safe-fetch.ts) see the fake resolver.
const lookup = vi.hoisted(() => vi.fn());
vi.mock("node:dns/promises", () => ({ lookup, default: { lookup } }));

function refusal(input: string, opts: { allowFile?: boolean } = {}): AppError {
  try {
    parseGitUrl(input, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("validation_failed");
    return err as AppError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe("parseGitUrl accepts", () => {
  it.each([
    ["https://github.com/owner/repo", "https://github.com/owner/repo"],
    ["https://github.com/owner/repo.git", "https://github.com/owner/repo.git"],
    ["https://github.com/owner/repo/", "https://github.com/owner/repo"],
    ["  https://GitHub.com/Owner/Repo_1.x~y-z  ", "https://github.com/Owner/Repo_1.x~y-z"],
    ["HTTPS://gitlab.example.org:8443/group/sub/repo.git", "https://gitlab.example.org:8443/group/sub/repo.git"],
    ["https://git.example.com:443/a/b", "https://git.example.com/a/b"],
  ])("%s", (input, url) => expect(parseGitUrl(input)).toEqual({ url, kind: "https" }));

  it("accepts an absolute file:// path only with the test allowance", () => {
    expect(parseGitUrl("file:///tmp/fixtures/repo.git", { allowFile: true })).toEqual({
      url: "file:///tmp/fixtures/repo.git",
      kind: "file",
    });
    expect(refusal("file:///tmp/fixtures/repo.git").message).toBe(GIT_TEXT.file);
  });
});

describe("parseGitUrl refuses", () => {
  it.each([
    ["", GIT_TEXT.empty],
    ["git@github.com:owner/repo.git", GIT_TEXT.ssh],
    ["user@host.example:repo", GIT_TEXT.ssh],
    ["ssh://git@github.com/owner/repo.git", GIT_TEXT.ssh],
    ["git+ssh://github.com/owner/repo", GIT_TEXT.ssh],
    ["ssh+git://github.com/owner/repo", GIT_TEXT.ssh],
    ["git://github.com/owner/repo.git", GIT_TEXT.gitProtocol],
    ["http://github.com/owner/repo", GIT_TEXT.http],
    ["file:///etc/passwd", GIT_TEXT.file],
    ["FILE:///etc", GIT_TEXT.file],
    ["--upload-pack=x", GIT_TEXT.option],
    ["-u sh", GIT_TEXT.option],
    ["ext::sh -c touch% /tmp/pwned", GIT_TEXT.transport],
    ["fd::17", GIT_TEXT.transport],
    ["github.com/owner/repo", GIT_TEXT.httpsOnly],
    ["/srv/repos/x", GIT_TEXT.httpsOnly],
    ["ftp://example.com/a/b", GIT_TEXT.httpsOnly],
    ["https://user:pw@github.com/a/b", GIT_TEXT.credentials],
    ["https://token@github.com/a/b", GIT_TEXT.credentials],
    ["https://github.com/a/b?ref=x", GIT_TEXT.queryOrFragment],
    ["https://github.com/a/b#main", GIT_TEXT.queryOrFragment],
    ["https://github.com?/a/b", GIT_TEXT.queryOrFragment],
    ["https://127.0.0.1/a/b", GIT_TEXT.host],
    ["https://127.1/a/b", GIT_TEXT.host],
    ["https://2130706433/a/b", GIT_TEXT.host],
    ["https://0x7f000001/a/b", GIT_TEXT.host],
    ["https://[::1]/a/b", GIT_TEXT.host],
    ["https://[::1]:8080/a/b", GIT_TEXT.host],
    ["https://localhost/a/b", GIT_TEXT.host],
    ["https://git.localhost/a/b", GIT_TEXT.host],
    ["https://nas.local/a/b", GIT_TEXT.host],
    ["https://metadata.google.internal/a/b", GIT_TEXT.host],
    ["https://gitserver/a/b", GIT_TEXT.host],
    ["https://-bad.example.com/a/b", GIT_TEXT.host],
    ["https://git_hub.com/a/b", GIT_TEXT.host],
    ["https://github.com:99999/a/b", GIT_TEXT.port],
    ["https://github.com:0/a/b", GIT_TEXT.port],
    ["https://github.com:x/a/b", GIT_TEXT.port],
    ["https://github.com/a/../../b", GIT_TEXT.dotDot],
    ["https://github.com/../a/b", GIT_TEXT.dotDot],
    ["https://github.com/a/./b", GIT_TEXT.dotDot],
    ["https://github.com/a/%2e%2e/b", GIT_TEXT.path],
    ["https://github.com/a//b", GIT_TEXT.path],
    ["https://github.com/a/b c", GIT_TEXT.path],
    ["https://github.com/a/b;id", GIT_TEXT.path],
    ["https://github.com/a/$(id)", GIT_TEXT.path],
    ["https://github.com/a/b\nhttps://evil.example/x/y", GIT_TEXT.path],
    ["https://github.com/repo", GIT_TEXT.shortPath],
    ["https://github.com", GIT_TEXT.shortPath],
    [`https://github.com/a/${"b".repeat(300)}`, GIT_TEXT.tooLong],
  ])("%j", (input, message) => expect(refusal(input).message).toBe(message));

  it.each(["file://host/etc", "file://relative/x", "file:///tmp/../etc", "file:///tmp/a b", "file:///tmp/$(id)", "file:///tmp/x?y"])(
    "refuses the unsafe file URL %s even with the test allowance",
    (input) => expect(refusal(input, { allowFile: true }).message).toBe(GIT_TEXT.filePath),
  );
});

describe("assertPublicGitHost", () => {
  beforeEach(() => lookup.mockReset());

  it("passes a host that resolves only to public addresses", async () => {
    lookup.mockResolvedValue([
      { address: "140.82.121.4", family: 4 },
      { address: "2606:50c0:8000::153", family: 6 },
    ]);
    await expect(assertPublicGitHost("https://github.com/a/b")).resolves.toBeUndefined();
    expect(lookup).toHaveBeenCalledWith("github.com", { all: true });
  });

  it.each(["127.0.0.1", "10.0.0.5", "169.254.169.254", "192.168.1.1", "::1", "fe80::1", "fd00::1"])(
    "refuses a host resolving to %s",
    async (address) => {
      lookup.mockResolvedValue([
        { address: "140.82.121.4", family: 4 },
        { address, family: address.includes(":") ? 6 : 4 },
      ]);
      await expect(assertPublicGitHost("https://rebind.example.com/a/b")).rejects.toThrow(GIT_TEXT.notPublic);
    },
  );

  it("refuses IP literals without a lookup, and a host that does not resolve", async () => {
    await expect(assertPublicGitHost("https://127.0.0.1/a/b")).rejects.toThrow(GIT_TEXT.notPublic);
    await expect(assertPublicGitHost("https://[::1]/a/b")).rejects.toThrow(GIT_TEXT.notPublic);
    expect(lookup).not.toHaveBeenCalled();
    lookup.mockRejectedValue(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }));
    await expect(assertPublicGitHost("https://nope.example.com/a/b")).rejects.toThrow(GIT_TEXT.unresolvable);
    lookup.mockResolvedValue([]);
    await expect(assertPublicGitHost("https://empty.example.com/a/b")).rejects.toThrow(GIT_TEXT.notPublic);
  });

  it("does nothing for file URLs", async () => {
    await expect(assertPublicGitHost("file:///tmp/repo.git")).resolves.toBeUndefined();
    expect(lookup).not.toHaveBeenCalled();
  });
});
