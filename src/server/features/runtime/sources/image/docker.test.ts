import { describe, expect, it } from "vitest";
import { refusal } from "~support/refusal.js";
import { COMMAND_TEXT, commandKind, sourceFrom } from "../../command.js";
import { lexText } from "../../command-lex.js";
import { DOCKER_TEXT, imageName, isBareImage, parseDockerCommand, parseImageRef } from "./docker.js";

const D = "sha256:" + "a".repeat(64);

describe("image references (the distribution spec's grammar)", () => {
  it.each([
    ["alpine", "docker.io/library/alpine:latest"],
    ["mcp/github", "docker.io/mcp/github:latest"],
    ["mcp/github:1.2.0", "docker.io/mcp/github:1.2.0"],
    ["index.docker.io/mcp/github:1", "docker.io/mcp/github:1"],
    ["ghcr.io/acme/tools/server:v1.0-rc.1", "ghcr.io/acme/tools/server:v1.0-rc.1"],
    ["registry.example.com:5000/team/img", "registry.example.com:5000/team/img:latest"],
    ["localhost/img:dev", "localhost/img:dev"],
    [`quay.io/acme/img@${D}`, `quay.io/acme/img@${D}`],
    [`mcr.microsoft.com/a/b:1@${D}`, `mcr.microsoft.com/a/b:1@${D}`],
  ])("reads %s as %s", (input, canonical) => {
    const ref = parseImageRef(input);
    expect(ref).not.toBeNull();
    expect(imageName(ref!)).toBe(canonical);
  });

  it.each([
    "UPPER/case",
    "acme/img:",
    "acme/img@sha256:abc",
    `acme/img@md5:${"a".repeat(32)}`,
    "acme//img",
    "-acme/img",
    "acme/img:-tag",
    "acme/img:" + "t".repeat(129),
    "host:99999/img",
    "https://ghcr.io/acme/img",
    "acme/../etc",
    "acme/img tag",
  ])("refuses %s", (input) => {
    expect(parseImageRef(input)).toBeNull();
  });
});

describe("docker run under the strict grammar", () => {
  it.each([
    ["docker run -i mcp/time", { image: "docker.io/mcp/time:latest", args: [], env: [] }],
    [
      "docker run -i --rm -e GITHUB_TOKEN -e HOST ghcr.io/acme/gh:2 --read-only --toolsets=repos",
      { image: "ghcr.io/acme/gh:2", args: ["--read-only", "--toolsets=repos"], env: ["GITHUB_TOKEN", "HOST"] },
    ],
    ["docker run --rm --interactive --env API_KEY acme/x:1", { image: "docker.io/acme/x:1", args: [], env: ["API_KEY"] }],
    ["docker run -i --env=API_KEY -eOTHER acme/x", { image: "docker.io/acme/x:latest", args: [], env: ["API_KEY", "OTHER"] }],
    [`docker run -i acme/x@${D} serve`, { image: `docker.io/acme/x@${D}`, args: ["serve"], env: [] }],
    ["ghcr.io/acme/server:1.0", { image: "ghcr.io/acme/server:1.0", args: [], env: [] }],
    // -p: it speaks streamable HTTP on that port inside its sandbox (-i then optional).
    ["docker run -p 8080 acme/x", { image: "docker.io/acme/x:latest", args: [], env: [], port: 8080 }],
    ["docker run -i --rm -p 8000:8000 -e KEY acme/x", { image: "docker.io/acme/x:latest", args: [], env: ["KEY"], port: 8000 }],
    ["docker run --publish=3000/tcp acme/x serve", { image: "docker.io/acme/x:latest", args: ["serve"], env: [], port: 3000 }],
  ])("accepts %s", (input, want) => {
    expect(parseDockerCommand(input)).toEqual(want);
  });

  // Every way out of the sandbox docker offers is refused by name, before anything runs.
  it.each([
    ["docker run -i -v /:/host acme/x", "-v"],
    ["docker run -i --volume=/etc:/etc acme/x", "--volume"],
    ["docker run -i --privileged acme/x", "--privileged"],
    ["docker run -i --network host acme/x", "--network"],
    ["docker run -i --net=host acme/x", "--net"],
    ["docker run -i --user 0 acme/x", "--user"],
    ["docker run -i -u 0 acme/x", "-u"],
    ["docker run -i --entrypoint /bin/sh acme/x", "--entrypoint"],
    ["docker run -i --cap-add SYS_ADMIN acme/x", "--cap-add"],
    ["docker run -i --device /dev/kvm acme/x", "--device"],
    ["docker run -i --pid=host acme/x", "--pid"],
    ["docker run -i --security-opt seccomp=unconfined acme/x", "--security-opt"],
    ["docker run -i -P acme/x", "-P"],
    ["docker run -it acme/x", "-it"],
    ["docker run -i --mount type=bind,src=/,dst=/h acme/x", "--mount"],
    ["docker run -i --env-file /etc/shadow acme/x", "--env-file"],
  ])("refuses %s (%s)", (input, option) => {
    expect(refusal(() => parseDockerCommand(input))).toBe(lexText("docker").forbiddenOption(option));
  });

  it("takes -p as the one port inside the sandbox, never a host's address or another port of the host", () => {
    for (const [input, value] of [
      ["docker run -p 127.0.0.1:8080:8080 acme/x", "127.0.0.1:8080:8080"],
      ["docker run -p 80:8080 acme/x", "80:8080"],
      ["docker run -p 0 acme/x", "0"],
      ["docker run -p 70000 acme/x", "70000"],
      ["docker run -p 8080-8090 acme/x", "8080-8090"],
      ["docker run -p 8080/udp acme/x", "8080/udp"],
      ["docker run -p 8080 -p 9090 acme/x", "9090"],
    ] as const)
      expect(refusal(() => parseDockerCommand(input))).toBe(DOCKER_TEXT.port(value));
    expect(DOCKER_TEXT.port("80:8080")).toBe(
      'Give -p the one port the server listens on inside its sandbox ("-p 8080"; "-p 8080:8080" reads the same), not "80:8080": it is never opened on the host',
    );
  });

  it("gives -e a key's name only: its value comes from the deployment's keys", () => {
    expect(refusal(() => parseDockerCommand("docker run -i -e API_KEY=abc acme/x"))).toBe(DOCKER_TEXT.envValue("API_KEY=abc"));
    expect(DOCKER_TEXT.envValue("API_KEY=abc")).toBe(
      `Give -e only a key's name ("-e API_KEY"): its value comes from the deployment's keys`,
    );
    expect(refusal(() => parseDockerCommand("docker run -i -e 9LIVES acme/x"))).toBe(DOCKER_TEXT.invalidEnv("9LIVES"));
  });

  it("needs run, -i and an image; anything shell-like is refused by the shared rules", () => {
    expect(refusal(() => parseDockerCommand("docker pull acme/x"))).toBe(DOCKER_TEXT.shape);
    expect(refusal(() => parseDockerCommand("docker run acme/x"))).toBe(DOCKER_TEXT.interactive);
    expect(refusal(() => parseDockerCommand("docker run -i --rm"))).toBe(DOCKER_TEXT.missingImage);
    expect(refusal(() => parseDockerCommand("docker run -i ACME/X"))).toBe(DOCKER_TEXT.invalidImage("ACME/X"));
    expect(refusal(() => parseDockerCommand("docker run -i acme/x; rm -rf /"))).toBe(lexText("docker").shell);
    expect(refusal(() => parseDockerCommand("docker run -i acme/x $(id)"))).toBe(lexText("docker").shell);
    expect(refusal(() => parseDockerCommand("acme/x extra"))).toBe(DOCKER_TEXT.shape);
  });

  it("is what a command or catalogue entry names: docker run, or an image reference alone", () => {
    expect(commandKind("docker run -i acme/x")).toBe("docker");
    expect(commandKind("ghcr.io/acme/x:1")).toBe("docker");
    expect(commandKind("node server.js")).toBeNull();
    expect(isBareImage("mcp-server")).toBe(false);
    expect(isBareImage("https://example.com/x")).toBe(false);
    expect(sourceFrom("docker run -i --rm -e K acme/x:1 --flag", null, { allowFileGit: false })).toEqual({
      kind: "image",
      image: "docker.io/acme/x:1",
      args: ["--flag"],
    });
    expect(sourceFrom("quay.io/acme/x", null, { allowFileGit: false })).toEqual({
      kind: "image",
      image: "quay.io/acme/x:latest",
      args: [],
    });
    expect(refusal(() => sourceFrom("node server.js", null, { allowFileGit: false }))).toBe(COMMAND_TEXT.unknown);
  });
});
