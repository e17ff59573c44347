import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

// Tabs as the WAI-ARIA Authoring Practices describe them (automatic activation): a tablist of
// buttons, one focusable at a time, Left and Right (wrapping), Home and End to move, each panel
// labelled by its tab. Each tab and panel carries data-state="active"|"inactive" for styling.
// Hand-written because a server page renders one on every request: Radix's Tabs, with its
// roving-focus group, collection and slots, cost ~6% of that page's CPU.

export type Tab = { value: string; label: ReactNode; panel: ReactNode };

export function Tabs({
  tabs,
  label,
  defaultValue,
  className,
  listClassName,
  tabClassName,
  panelClassName,
  keepMounted = false,
}: {
  tabs: readonly Tab[];
  /** the tablist's accessible name */
  label: string;
  defaultValue: string;
  className?: string;
  listClassName?: string;
  tabClassName?: string;
  panelClassName?: string;
  /** render every panel (the inactive ones styled away with data-[state=inactive]), not only the active one */
  keepMounted?: boolean;
}) {
  const [active, setActive] = useState(defaultValue);
  const id = useId();
  const list = useRef<HTMLDivElement>(null);
  const tabId = (v: string) => `${id}-tab-${v}`;
  const panelId = (v: string) => `${id}-panel-${v}`;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = tabs.findIndex((t) => t.value === active);
    const next =
      e.key === "ArrowRight"
        ? (i + 1) % tabs.length
        : e.key === "ArrowLeft"
          ? (i - 1 + tabs.length) % tabs.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? tabs.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    setActive(tabs[next]!.value);
    list.current?.querySelectorAll<HTMLButtonElement>('[role="tab"]')[next]?.focus();
  };

  return (
    <div className={className}>
      <div ref={list} role="tablist" aria-label={label} aria-orientation="horizontal" className={listClassName} onKeyDown={onKeyDown}>
        {tabs.map((t) => {
          const on = t.value === active;
          return (
            <button
              key={t.value}
              type="button"
              role="tab"
              id={tabId(t.value)}
              aria-selected={on}
              aria-controls={panelId(t.value)}
              data-state={on ? "active" : "inactive"}
              tabIndex={on ? 0 : -1}
              className={tabClassName}
              onClick={() => setActive(t.value)}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      {tabs.map((t) => {
        const on = t.value === active;
        if (!on && !keepMounted) return null;
        return (
          <div
            key={t.value}
            role="tabpanel"
            id={panelId(t.value)}
            aria-labelledby={tabId(t.value)}
            data-state={on ? "active" : "inactive"}
            tabIndex={0}
            className={panelClassName}
          >
            {t.panel}
          </div>
        );
      })}
    </div>
  );
}
