// One formatter per style, created once: toLocaleDateString builds a new Intl formatter on every
// call, which showed up as the costliest line of a server page's render.
const long = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
const short = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/** "November 23, 2026" */
export const longDate = (iso: string) => long.format(new Date(iso));
/** "Nov 23, 2026" */
export const shortDate = (iso: string) => short.format(new Date(iso));
