import type { ListingReview } from "../../catalog/submissions.js";
import { whatRuns } from "../deployability.js";
import { definitionOf } from "../definitions/definitions.js";
import { approveCandidate } from "../definitions/listings.js";

// What the catalogue's review asks of the entries' check listings (catalog's ListingReview): the
// checks write the listings here, the admins' review reads and approves them there.

const toolsOf = (listing: unknown): unknown[] | undefined => {
  const tools = (listing as { tools?: unknown } | null | undefined)?.tools;
  return Array.isArray(tools) ? tools : undefined;
};

/**
 * How the latest check's tools differ from the public (approved) ones, by name and definition
 * hash: everything is 'added' for an entry with nothing public yet. Null: no check listing waits.
 */
export function toolsChanged(approvedListing: unknown, candidateListing: unknown): ReturnType<ListingReview["toolsChanged"]> {
  const listed = toolsOf(candidateListing);
  if (!listed) return null;
  const approved = toolsOf(approvedListing) ?? [];
  const byName = (tools: unknown[]) => new Map(tools.map(definitionOf).flatMap((d) => (d ? [[d.name, d.hash] as const] : [])));
  const before = byName(approved);
  const now = byName(listed);
  const added = [...now.keys()].filter((n) => !before.has(n)).sort();
  const changed = [...now.keys()].filter((n) => before.has(n) && before.get(n) !== now.get(n)).sort();
  const removed = [...before.keys()].filter((n) => !now.has(n)).sort();
  // A candidate differs in something (a prompt, a template) even when its tools do not.
  return { added, changed, removed };
}

/** The review's port, for this platform (GIT_ALLOW_FILE decides whether a file:// repository runs). */
export function listingReview(opts: { allowFileGit: boolean }): ListingReview {
  return {
    approve: (tx, serverId) => approveCandidate(tx as Parameters<typeof approveCandidate>[0], serverId),
    toolsChanged,
    runs: (entry) => whatRuns(entry, opts),
  };
}
