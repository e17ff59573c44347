import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import * as lucide from "lucide-react";
import { describe, expect, it } from "vitest";
import * as icons from "./icons";

const drawn = Object.entries(icons).filter(([name]) => /^[A-Z]/.test(name)) as [string, icons.Icon][];
const markup = (type: Parameters<typeof createElement>[0], props: object) => renderToStaticMarkup(createElement(type, props));

describe("icons", () => {
  it("covers the icons the pages use", () => {
    expect(drawn.length).toBeGreaterThan(50);
  });

  it.each(drawn)("%s draws lucide-react's own markup", (name, Icon) => {
    const original = (lucide as unknown as Record<string, Parameters<typeof createElement>[0]>)[name]!;
    for (const props of [{}, { className: "h-4 w-4 text-indigo-500" }, { className: "h-5 w-5", "aria-label": "Close" }]) {
      const mine = markup(Icon, props);
      expect(mine).toBe(markup(original, props));
      expect(mine).toMatch(/<svg [^>]*class="lucide lucide-[a-z0-9-]+[^"]*"[^>]*>.*<\/svg>$/);
    }
  });

  it("hides an unnamed icon from assistive technology and keeps a named one", () => {
    expect(markup(icons.Copy, { className: "h-4 w-4" })).toContain('aria-hidden="true"');
    const named = markup(icons.X, { "aria-label": "Close" });
    expect(named).toContain('aria-label="Close"');
    expect(named).not.toContain("aria-hidden");
  });
});
