import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { hostRun } from "./host-process.js";

// Files a tenant controls (a cloned repository, anything its build wrote) are read by the platform
// only through these functions: every path component is checked without following symbolic
// links, the file is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO cannot stall the platform),
// must be a regular file and is size-capped. Errors never carry the file's content, so nothing a
// tenant points at can reach a status text or a log. No tenant process is alive while these run
// (each install step's sandbox has exited), so nothing can swap a component between check and open.

export class TenantFileError extends Error {}

/** Removes a tree a tenant wrote, without following links, however deep (Node's recursive rm gives up on very deep ones). */
export async function removeTree(p: string): Promise<void> {
  try {
    await fs.rm(p, { recursive: true, force: true });
  } catch {
    await hostRun("rm", ["-rf", "--one-file-system", "--", p]);
  }
}

/** `rel` split into components that stay inside the root lexically. */
function components(rel: string): string[] {
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  if (path.isAbsolute(rel) || parts.includes("..")) throw new TenantFileError(`${rel} is outside the repository`);
  return parts;
}

/** What is at `root/rel`, looked at without following any link: 'file', 'dir', 'link' (somewhere on the way), 'other' or 'missing'. */
export async function tenantPathKind(root: string, rel: string): Promise<"file" | "dir" | "link" | "other" | "missing"> {
  // The root itself is looked at too: a build may have replaced its own folder with a link.
  const top = await fs.lstat(root).catch(() => null);
  if (!top) return "missing";
  if (top.isSymbolicLink()) return "link";
  if (!top.isDirectory()) return "missing";
  let p = root;
  const parts = components(rel);
  for (let i = 0; i < parts.length; i++) {
    p = path.join(p, parts[i]!);
    const st = await fs.lstat(p).catch(() => null);
    if (!st) return "missing";
    if (st.isSymbolicLink()) return "link";
    if (i < parts.length - 1 && !st.isDirectory()) return "missing";
    if (i === parts.length - 1) return st.isFile() ? "file" : st.isDirectory() ? "dir" : "other";
  }
  return "dir";
}

/** The text of `root/rel`, or null when it does not exist. Links, devices and oversized files are refused by name only. */
export async function readTenantFile(root: string, rel: string, maxBytes = 1024 * 1024): Promise<string | null> {
  const kind = await tenantPathKind(root, rel);
  if (kind === "missing") return null;
  if (kind === "link")
    throw new TenantFileError(
      `${rel} is a symbolic link (or lies behind one, or its folder is one); the platform does not follow links in a repository`,
    );
  if (kind !== "file") throw new TenantFileError(`${rel} is not a regular file`);
  const fh = await fs.open(path.join(root, rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => {
    throw new TenantFileError(`${rel} could not be opened`);
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new TenantFileError(`${rel} is not a regular file`);
    if (st.size > maxBytes) throw new TenantFileError(`${rel} is larger than ${Math.round(maxBytes / 1024)} KB`);
    const buf = Buffer.alloc(st.size);
    const { bytesRead } = await fh.read(buf, 0, st.size, 0);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await fh.close();
  }
}

/** A JSON object from a tenant file; a parse error says which file, never what it holds (V8's messages quote the text). */
export async function readTenantJson<T>(root: string, rel: string): Promise<T | null> {
  const text = await readTenantFile(root, rel);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TenantFileError(`${rel} is not valid JSON`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new TenantFileError(`${rel} does not hold a JSON object`);
  return value as T;
}
