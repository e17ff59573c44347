import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

// Who hosted code runs as on this machine. When the platform is root, every deployment gets a
// host uid (and gid) of its own from SANDBOX_UID_BASE + 1 upwards, and the platform's own npm
// installs run as SANDBOX_UID_BASE: tenants are separated by ownership as well as by namespaces,
// and none of them is ever uid 0. Inside its user namespace a sandbox's uid is the same number;
// the namespace's root, which only bubblewrap's set-up ever is, maps to SANDBOX_UID_BASE + 65535.
// The assignment lives in a root-owned file beside the deployments, so a deployment keeps its uid
// (and its files) across restarts of the platform. A platform that is not root cannot switch
// uids: everything then runs as the platform's own unprivileged uid (root inside the namespace,
// without capabilities), and the admin page says tenants share it.

export interface Identity {
  uid: number;
  gid: number;
}

export const MAX_SLOTS = 65536;
/** The last slot: what root inside every sandbox's user namespace is on the host. */
const SETUP_SLOT = MAX_SLOTS - 1;

export class UidPool {
  private slots: Map<string, number> | undefined;
  private chain: Promise<unknown> = Promise.resolve();

  /** `base` null: no dedicated uids (the platform is not root). */
  constructor(
    private readonly file: string,
    private readonly base: number | null,
  ) {}

  get dedicated(): boolean {
    return this.base !== null;
  }

  /** The host uid of root inside a sandbox's user namespace (bubblewrap's set-up, never the program). */
  setupUid(): number | null {
    return this.base === null ? null : this.base + SETUP_SLOT;
  }

  /** The identity of the platform's own installs into the shared package cache. */
  installer(): Identity | null {
    return this.base === null ? null : { uid: this.base, gid: this.base };
  }

  /** The deployment's identity, assigned on first use and kept until release. */
  forDeployment(id: string): Promise<Identity | null> {
    if (this.base === null) return Promise.resolve(null);
    const base = this.base;
    return this.locked(async (slots) => {
      let slot = slots.get(id);
      if (slot === undefined) {
        const used = new Set(slots.values());
        slot = 1;
        while (used.has(slot)) slot++;
        if (slot >= SETUP_SLOT) throw new Error(`every one of the ${SETUP_SLOT - 1} sandbox uids of this machine is in use`);
        slots.set(id, slot);
        await this.save(slots);
      }
      return { uid: base + slot, gid: base + slot };
    });
  }

  release(id: string): Promise<void> {
    if (this.base === null) return Promise.resolve();
    return this.locked(async (slots) => {
      if (slots.delete(id)) await this.save(slots);
    });
  }

  private locked<T>(fn: (slots: Map<string, number>) => Promise<T>): Promise<T> {
    const next = this.chain.then(async () => fn(await this.load()));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async load(): Promise<Map<string, number>> {
    if (this.slots) return this.slots;
    const text = await fs.readFile(this.file, "utf8").catch(() => "{}");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${this.file} is not valid JSON: fix or remove it (it maps deployments to their sandbox uids)`);
    }
    this.slots = new Map(
      Object.entries(parsed as Record<string, number>).filter((e) => Number.isInteger(e[1]) && e[1] > 0 && e[1] < SETUP_SLOT),
    );
    return this.slots;
  }

  private async save(slots: Map<string, number>): Promise<void> {
    const tmp = `${this.file}.${randomBytes(4).toString("hex")}`;
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    await fs.writeFile(tmp, JSON.stringify(Object.fromEntries(slots)), { mode: 0o600 });
    await fs.rename(tmp, this.file);
  }
}
