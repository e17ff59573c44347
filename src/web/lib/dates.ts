import { formatDate, formatDateTime } from "../../shared/format";

// The site's one way of writing a date (src/shared/format.ts: English, UTC, so the server's render
// and the browser's agree): every page writes dates through these.

/** "December 2, 2026" */
export const longDate = (iso: string) => formatDate(iso);
/** "December 2, 2026, 14:05 UTC": when something happened, to the minute (`seconds` for a request log's rows) */
export const dateTime = (iso: string, opts?: { seconds?: boolean }) => formatDateTime(iso, opts);

const rtf = new Intl.RelativeTimeFormat("en-US", { numeric: "auto" });
/**
 * How long ago, coarsely ("5 minutes ago", "yesterday", "3 weeks ago"; the date past a year).
 * `now` comes from the loader, so the server's render and the browser's agree. Where it is shown,
 * the exact time is its title (dateTime).
 */
export function timeAgo(iso: string, now: number): string {
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return rtf.format(-Math.floor(s / 60), "minute");
  if (s < 86_400) return rtf.format(-Math.floor(s / 3600), "hour");
  if (s < 14 * 86_400) return rtf.format(-Math.floor(s / 86_400), "day");
  if (s < 365 * 86_400) return rtf.format(-Math.floor(s / (7 * 86_400)), "week");
  return longDate(iso);
}
