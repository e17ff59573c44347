import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { Identity } from "./identity.js";
import { mountLayer } from "./image-layer.js";
import { hostRun } from "./host-process.js";
import { mountPoints, unmount } from "./mounts.js";
import { removeTree } from "./tenant-files.js";

// Each deployment's writable directory (its HOME, its git checkout, whatever it writes). Where
// the platform is root and the kernel has loop devices, the directory is its own ext4 file system
// of DEPLOY_DISK_MB in a sparse image, mounted nosuid,nodev: the kernel enforces the disk limit,
// and a setuid bit set inside means nothing on the host. The image lives in a root-only folder
// the tenant never sees, so only the kernel's ext4 code ever writes its metadata. Elsewhere the
// directory is a plain one (the admin page then reports the disk limit as missing).

export { mountPoints } from "./mounts.js";

export interface VolumeOptions {
  /** DEPLOYMENTS_DIR */
  dir: string;
  diskMb: number;
  /** whether deployments get their own ext4 volume (decided by the sandbox probe) */
  loop: boolean;
  /** an image's writable layer could not be mounted (logged: the image runs read-only) */
  onLayerError?: (e: Error) => void;
}

export class Volumes {
  constructor(private readonly o: VolumeOptions) {}

  get kernelLimited(): boolean {
    return this.o.loop;
  }

  path(id: string): string {
    return path.join(this.o.dir, id);
  }

  private image(id: string): string {
    return path.join(this.o.dir, ".volumes", `${id}.img`);
  }

  /** Creates (or mounts again after a restart) the deployment's directory, owned by its identity. */
  async ensure(id: string, identity: Identity | null): Promise<string> {
    const dir = this.path(id);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    if (this.o.loop) {
      if (!mountPoints().has(dir)) {
        const img = this.image(id);
        if (!existsSync(img)) await createImage(img, this.o.diskMb, identity);
        await hostRun("mount", ["-t", "ext4", "-o", "loop,nosuid,nodev,noatime,errors=remount-ro", img, dir]);
      }
    } else if (identity) {
      await fs.chown(dir, identity.uid, identity.gid);
    }
    await fs.chmod(dir, 0o700);
    return dir;
  }

  /** Where a deployment's image tree with its writable layer is mounted: root's, outside the volume. */
  private merged(id: string): string {
    return path.join(this.o.dir, ".roots", id);
  }

  /**
   * An image deployment's `/` and its /data: with a root platform, the image's tree under the
   * deployment's own writable layer (image-layer.ts) and the volume's `data` folder (the layer's
   * folders beside it are root's); elsewhere the tree read-only and the whole volume.
   */
  async imageRoot(
    id: string,
    tree: string,
    digest: string,
    identity: Identity | null,
  ): Promise<{ root: string; writable: boolean; data: string }> {
    const dir = this.path(id);
    if (process.getuid?.() !== 0) return { root: tree, writable: false, data: dir };
    const data = path.join(dir, "data");
    if (!(await fs.lstat(data).catch(() => null))?.isDirectory()) {
      await removeTree(data);
      await fs.mkdir(data, { mode: 0o700 });
    }
    if (identity) await fs.chown(data, identity.uid, identity.gid);
    const roots = path.dirname(this.merged(id));
    await fs.mkdir(roots, { recursive: true, mode: 0o711 });
    await fs.chmod(roots, 0o711);
    try {
      await mountLayer({ layers: path.join(dir, ".layer"), merged: this.merged(id) }, tree, digest, identity);
    } catch (e) {
      // A kernel without overlays: the image runs on its tree as it is, read-only (its /tmp and /data still writable).
      this.o.onLayerError?.(e as Error);
      return { root: tree, writable: false, data };
    }
    return { root: this.merged(id), writable: true, data };
  }

  /** Where the relay into an HTTP image's sandbox listens (sandbox/relay.ts): a folder of the deployment's own, outside its volume. */
  async relaySocket(id: string): Promise<string> {
    const relays = path.join(this.o.dir, ".relays");
    await fs.mkdir(relays, { recursive: true, mode: 0o711 });
    await fs.chmod(relays, 0o711);
    return path.join(relays, id, "mcp.sock");
  }

  /** Bytes used and the limit, where the kernel keeps one. */
  async usage(id: string): Promise<{ used: number; size: number } | null> {
    if (!this.o.loop) return null;
    const s = await fs.statfs(this.path(id)).catch(() => null);
    return s ? { used: (s.blocks - s.bfree) * s.bsize, size: s.blocks * s.bsize } : null;
  }

  async remove(id: string): Promise<void> {
    const dir = this.path(id);
    const merged = this.merged(id);
    if (mountPoints().has(merged)) await unmount(merged).catch(() => {});
    await fs.rmdir(merged).catch(() => {});
    await removeTree(path.join(this.o.dir, ".relays", id));
    if (mountPoints().has(dir)) await unmount(dir);
    await fs.rm(this.image(id), { force: true });
    // rm never follows a link the tenant left inside.
    await removeTree(dir);
  }

  /**
   * A deployment put to sleep: its image layer and volume are unmounted and kept as they are, to
   * be mounted again when it wakes (ensure); its relay's folder goes with the process.
   */
  async unmount(id: string): Promise<void> {
    const dir = this.path(id);
    const merged = this.merged(id);
    if (mountPoints().has(merged)) await unmount(merged).catch(() => {});
    await removeTree(path.join(this.o.dir, ".relays", id));
    if (mountPoints().has(dir)) await unmount(dir).catch(() => {});
  }

  /** At shutdown: volumes are mounted again on the next start. */
  async unmountAll(): Promise<void> {
    const prefix = this.o.dir + path.sep;
    // The layers first: each holds its volume busy.
    const roots = path.join(this.o.dir, ".roots") + path.sep;
    const mine = [...mountPoints()].filter((p) => p.startsWith(prefix));
    for (const p of mine.filter((m) => m.startsWith(roots))) await unmount(p).catch(() => {});
    for (const p of mine.filter((m) => !m.startsWith(roots))) await unmount(p).catch(() => {});
  }
}

async function createImage(img: string, mb: number, identity: Identity | null): Promise<void> {
  await fs.mkdir(path.dirname(img), { recursive: true, mode: 0o700 });
  const tmp = `${img}.tmp`;
  const fh = await fs.open(tmp, "w", 0o600);
  await fh.truncate(mb * 1024 * 1024); // sparse: disk is used as the deployment writes
  await fh.close();
  const owner = identity ? `${identity.uid}:${identity.gid}` : `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
  // One inode per 8 KB (node_modules is many small files), a 4 MB journal, no blocks reserved for root.
  await hostRun("mkfs.ext4", ["-q", "-F", "-m", "0", "-i", "8192", "-J", "size=4", "-E", `root_owner=${owner}`, tmp]);
  await fs.rename(tmp, img);
}
