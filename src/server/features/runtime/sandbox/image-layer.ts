// A deployment's own writable layer over its image's shared, read-only tree, as a container
// runtime gives one: a kernel overlay mounted by the platform (root), its upper and work folders
// in a root-only folder of the deployment's volume (so DEPLOY_DISK_MB bounds what it writes, and
// the server never reaches them except through the overlay), the merged tree bound as the
// sandbox's `/`. The image's folders are made the deployment's own in its layer (each folder of
// the tree made again in the upper folder, owned by the deployment's uid: an overlay shows a
// folder with the upper one's owner and mode), so a server that writes where its image put it
// can, as it could as root in a container; the image's files stay as the image has them (readable
// to all, replaceable where the folder is the server's). Mounted nosuid,nodev; the tree's set-id
// bits are gone already (image-tree.ts). One layer per image digest: a tag that moved to another
// digest starts from a clean layer, as a new container would.
import fs from "node:fs/promises";
import path from "node:path";
import type { Identity } from "./identity.js";
import { hostRun } from "./host-process.js";
import { mountPoints, unmount } from "./mounts.js";
import { removeTree } from "./tenant-files.js";

/** Folders of the tree the sandbox mounts over (the layer has nothing to add there). */
const MOUNTED = new Set(["proc", "dev", "tmp", "data"]);
const MAX_DEPTH = 64;

export interface LayerPaths {
  /** root-only folder of the volume holding each digest's layer */
  layers: string;
  /** where the merged tree is mounted (a root-owned folder outside the volume) */
  merged: string;
}

const layerName = (digest: string) => digest.replace(":", "-");

/** The merged tree at `paths.merged`, mounted unless it is already (a restart keeps the layer). */
export async function mountLayer(paths: LayerPaths, lower: string, digest: string, identity: Identity | null): Promise<void> {
  if (mountPoints().has(paths.merged)) await unmount(paths.merged).catch(() => {});
  await fs.mkdir(paths.layers, { recursive: true, mode: 0o700 });
  await fs.chown(paths.layers, 0, 0);
  await fs.chmod(paths.layers, 0o700);
  const name = layerName(digest);
  // Another digest's layer (the tag moved) is not this image's: it goes.
  for (const old of await fs.readdir(paths.layers)) if (old !== name) await removeTree(path.join(paths.layers, old));
  const layer = path.join(paths.layers, name);
  const upper = path.join(layer, "upper");
  const work = path.join(layer, "work");
  const ready = path.join(layer, "ready");
  if (!(await fs.stat(ready).catch(() => null))) {
    await removeTree(layer);
    await fs.mkdir(work, { recursive: true, mode: 0o700 });
    await mirrorFolders(lower, upper, identity);
    await fs.writeFile(ready, "", { mode: 0o600 });
  }
  await fs.mkdir(paths.merged, { recursive: true, mode: 0o755 });
  await hostRun("mount", [
    "-t",
    "overlay",
    "overlay",
    "-o",
    `lowerdir=${lower},upperdir=${upper},workdir=${work},nosuid,nodev,noatime`,
    paths.merged,
  ]);
}

/** Each folder of the image's tree made again under `upper` (never through a link), the deployment's own, with the image's mode. */
async function mirrorFolders(lower: string, upper: string, identity: Identity | null): Promise<void> {
  const own = async (dir: string, mode: number) => {
    await fs.mkdir(dir, { mode: 0o700 });
    if (identity) await fs.chown(dir, identity.uid, identity.gid);
    // The owner may always write and enter; no one else may write, and set-id and sticky bits are not carried over.
    await fs.chmod(dir, (mode & 0o755) | 0o700);
  };
  const walk = async (from: string, to: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return;
    for (const e of await fs.readdir(from, { withFileTypes: true })) {
      if (!e.isDirectory() || (depth === 0 && MOUNTED.has(e.name))) continue;
      const src = path.join(from, e.name);
      const st = await fs.lstat(src);
      if (!st.isDirectory()) continue;
      const dest = path.join(to, e.name);
      await own(dest, st.mode);
      await walk(src, dest, depth + 1);
    }
  };
  await own(upper, (await fs.lstat(lower)).mode);
  await walk(lower, upper, 0);
}
