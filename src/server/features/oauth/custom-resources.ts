import type { Db } from "../../db/client.js";
import { deleteGrantsFor, insertCustomResource } from "./repo.js";

// A deployment reached at a custom domain is a protected resource at that URL too
// (features/domains): its tokens name the custom URL, and go when the domain does.

/** The domain's resource row, made when a client first asks for a token for its URL. */
export const ensureCustomResource = (db: Db, domain: string, identifier: string) => insertCustomResource(db, domain, identifier);

/** Every token, consent and use record bound to this URL: a domain removed (or added afresh) starts with none. */
export const forgetResource = (db: Db, identifier: string) => deleteGrantsFor(db, { resource: identifier });
