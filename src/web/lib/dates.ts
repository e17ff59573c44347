// One formatter per style, created once: toLocaleDateString builds a new Intl formatter on every
// call, which showed up as the costliest line of a server page's render.
const long = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
const short = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/** "November 23, 2026" */
export const longDate = (iso: string) => long.format(new Date(iso));
/** "Nov 23, 2026" */
export const shortDate = (iso: string) => short.format(new Date(iso));
const stamp = new Intl.DateTimeFormat("en-US", {
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZone: "UTC",
});
/** "Nov 23, 14:05 UTC": when a job ran, to the minute */
export const dateTime = (iso: string) => `${stamp.format(new Date(iso))} UTC`;

const rtf = new Intl.RelativeTimeFormat("en-US", { numeric: "auto" });
/**
 * How long ago, coarsely ("5 minutes ago", "yesterday", "3 weeks ago"; a date past a year).
 * `now` comes from the loader, so the server's render and the browser's agree.
 */
export function timeAgo(iso: string, now: number): string {
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return rtf.format(-Math.floor(s / 60), "minute");
  if (s < 86_400) return rtf.format(-Math.floor(s / 3600), "hour");
  if (s < 14 * 86_400) return rtf.format(-Math.floor(s / 86_400), "day");
  if (s < 365 * 86_400) return rtf.format(-Math.floor(s / (7 * 86_400)), "week");
  return shortDate(iso);
}
