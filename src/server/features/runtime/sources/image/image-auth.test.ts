import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { authFileFor, registryAuth } from "./image-auth.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const file = JSON.stringify({
  auths: {
    "registry.example.com": { auth: b64("ops:one") },
    "https://index.docker.io/v1/": { auth: b64("hub:two") },
    "ghcr.io": { username: "gh", password: "three" },
    "quay.io/some-org": { auth: b64("scoped:four") },
    "mirror.example:5000": { auth: "" },
  },
  credsStore: "desktop",
});

describe("the operator's registry credentials, one registry's at a time", () => {
  it("gives a pull its own registry's entry and nothing of the others", () => {
    expect(JSON.parse(authFileFor(file, "registry.example.com")!)).toEqual({ auths: { "registry.example.com": { auth: b64("ops:one") } } });
    const hub = authFileFor(file, "docker.io")!;
    expect(JSON.parse(hub)).toEqual({ auths: { "docker.io": { auth: b64("hub:two") } } });
    for (const other of ["ops:one", "three", "scoped:four"]) expect(hub).not.toContain(b64(other));
    // A username and password are written as docker's `auth`.
    expect(JSON.parse(authFileFor(file, "ghcr.io")!)).toEqual({ auths: { "ghcr.io": { auth: b64("gh:three") } } });
    // Nothing else of the file (a credential helper's name) comes along.
    expect(authFileFor(file, "ghcr.io")).not.toContain("desktop");
  });

  it("gives nothing to a registry the file does not name, to a look-alike, or for a repository-scoped or empty entry", () => {
    for (const r of [
      "attacker.example",
      "registry.example.com.attacker.example",
      "example.com",
      "quay.io",
      "mirror.example:5000",
      "registry.example.com:443",
    ])
      expect(authFileFor(file, r)).toBeNull();
  });

  it("reads nothing from a file that is missing, not JSON or without auths", async () => {
    expect(authFileFor("not json", "ghcr.io")).toBeNull();
    expect(authFileFor(JSON.stringify({ auths: [] }), "ghcr.io")).toBeNull();
    expect(authFileFor("null", "ghcr.io")).toBeNull();
    expect(await registryAuth(null, "ghcr.io")).toBeNull();
    expect(await registryAuth(path.join(os.tmpdir(), `missing-${Date.now()}.json`), "ghcr.io")).toBeNull();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "auth-"));
    try {
      await fs.writeFile(path.join(dir, "config.json"), file);
      expect(await registryAuth(path.join(dir, "config.json"), "ghcr.io")).toContain(b64("gh:three"));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
