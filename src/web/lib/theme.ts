import { useSyncExternalStore } from "react";

// The theme lives in localStorage under a fixed key; dark is the default (docs/product.md#layout).
export const THEME_KEY = "theme";
export type Theme = "dark" | "light";

// Runs inline in <head> before first paint so a reload never flashes the wrong theme.
export const themeBootScript = `(function(){try{var t=localStorage.getItem(${JSON.stringify(THEME_KEY)});if(t!=="light"&&t!=="dark")t="dark";var d=document.documentElement;d.classList.toggle("dark",t==="dark");d.dataset.theme=t;}catch(e){document.documentElement.classList.add("dark");}})();`;

export function readTheme(): Theme {
  if (typeof document === "undefined") return "dark";
  return document.documentElement.classList.contains("dark") ? "dark" : "light";
}

const EVENT = "switchboard:theme";

export function subscribeTheme(onChange: () => void): () => void {
  window.addEventListener(EVENT, onChange);
  // Another tab changed it.
  const onStorage = (e: StorageEvent) => {
    if (e.key === THEME_KEY) {
      const t = e.newValue === "light" ? "light" : "dark";
      document.documentElement.classList.toggle("dark", t === "dark");
      onChange();
    }
  };
  window.addEventListener("storage", onStorage);
  return () => {
    window.removeEventListener(EVENT, onChange);
    window.removeEventListener("storage", onStorage);
  };
}

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  root.classList.toggle("dark", theme === "dark");
  root.dataset.theme = theme;
  try {
    localStorage.setItem(THEME_KEY, theme);
  } catch {
    // private mode: the choice lasts for this page only
  }
  window.dispatchEvent(new Event(EVENT));
}

/** The current theme, following changes (the server always renders dark; the boot script may already have switched). */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribeTheme, readTheme, () => "dark" as Theme);
}
