import type { Context } from "hono";
import type { Viewer } from "../features/auth/viewer.js";
import { AppError } from "../errors.js";
import type { AppEnv } from "./middleware.js";

// Access is checked where a request enters: a route handler calls one of these first and hands
// the service a viewer that is never null. Each feature passes its own message (the product's
// wording for that screen), so the answers stay what they were.

/** Generic wording where a feature has none of its own. */
export const ACCESS_TEXT = {
  mustLogin: "Authentication required",
  adminsOnly: "Admins only",
} as const;

/** The signed-in viewer, or a 401 with `message`. */
export function requireViewer(c: Context<AppEnv>, message: string = ACCESS_TEXT.mustLogin): Viewer {
  const viewer = c.get("viewer");
  if (!viewer) throw new AppError("unauthorized", message);
  return viewer;
}

/** A signed-in admin: 401 with `mustLogin` when signed out, 403 with `forbidden` for everyone else. */
export function requireAdmin(
  c: Context<AppEnv>,
  mustLogin: string = ACCESS_TEXT.mustLogin,
  forbidden: string = ACCESS_TEXT.adminsOnly,
): Viewer {
  const viewer = requireViewer(c, mustLogin);
  if (!viewer.isAdmin) throw new AppError("forbidden", forbidden);
  return viewer;
}
