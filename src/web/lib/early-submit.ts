// A form clicked before the page has hydrated posts as it does without JavaScript
// (docs/product.md#forms). Without this, React sees the press first: an input event on a page
// still hydrating makes React hydrate it at once, inside that event, and a part that renders
// differently once scripts run (the admin page's lists become tabs, a confirmation's <details>
// becomes a dialog) is replaced under the pointer. The button pressed has then left the page
// before its click ends, so the browser submits nothing and the click is lost.
//
// This script runs in <head> before any form exists. Until root.tsx marks the page hydrated
// (html[data-hydrated]), the presses that make a submission (on a submit button, Enter in a
// field, a <details> summary that unfolds a confirmation) and the submit event itself are kept
// from React: the browser alone handles them, so the post is the plain form's, sent once, and
// the answer is the page the action renders or redirects to. Once such a post is under way the
// page is leaving: any further submission from it, before or after hydration, is dropped (one
// press, one post). A page that hydrated with no early post lets React handle every form.

/** The events that make React hydrate the target at once (React 19's discrete replayable events) and that a press on a control sends. */
const PRESS_EVENTS = [
  "pointerdown",
  "pointerup",
  "pointercancel",
  "mousedown",
  "mouseup",
  "touchstart",
  "touchend",
  "touchcancel",
  "click",
  "auxclick",
  "dblclick",
  "keydown",
  "keypress",
  "keyup",
];

function boot(events: string[]) {
  const root = document.documentElement;
  let sent = false;
  const early = () => !root.hasAttribute("data-hydrated");
  /** The control a press on `t` works: a form's submit button, or a details' summary. */
  const control = (t: EventTarget | null): Element | null => {
    const el = t instanceof Element ? t : t instanceof Node ? t.parentElement : null;
    const hit = el?.closest("button, input, summary");
    if (!hit) return null;
    if (hit.tagName === "SUMMARY") return hit;
    const b = hit as HTMLButtonElement | HTMLInputElement;
    if (!b.form) return null;
    const type = (b.getAttribute("type") ?? (b.tagName === "BUTTON" ? "submit" : "text")).toLowerCase();
    if (type === "submit" || type === "image") return b;
    return null;
  };
  /** Enter in a one-line field submits its form (implicit submission). */
  const entering = (e: Event) => {
    const t = e.target;
    if (!(t instanceof HTMLInputElement) || !t.form || (e as KeyboardEvent).key !== "Enter") return false;
    return !["button", "checkbox", "radio", "file", "reset", "color", "range"].includes(t.type);
  };
  for (const type of events)
    window.addEventListener(
      type,
      (e) => {
        if (early() && (control(e.target) || (type.startsWith("key") && entering(e)))) e.stopPropagation();
      },
      true,
    );
  window.addEventListener(
    "submit",
    (e) => {
      // The page is on its way to the early post's answer: nothing else posts from it meanwhile.
      if (sent) {
        e.preventDefault();
        e.stopPropagation();
        return;
      }
      if (!early()) return;
      e.stopPropagation();
      const form = e.target as HTMLFormElement;
      const target = (e as SubmitEvent).submitter?.getAttribute("formtarget") ?? form.getAttribute("target") ?? "";
      if (target === "" || target === "_self") sent = true;
    },
    true,
  );
  // A page shown again from the back-forward cache starts afresh.
  window.addEventListener("pageshow", () => {
    sent = false;
  });
}

/** The inline script (root.tsx puts it in <head>, with the page's CSP nonce). */
export const earlySubmitScript = `(${boot.toString()})(${JSON.stringify(PRESS_EVENTS)});`;
