import { AlertCircle, CheckCircle2 } from "~/web/components/icons";
import type { ComponentProps, ReactNode } from "react";

export const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 placeholder:text-slate-400 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500 disabled:opacity-60 dark:border-slate-700 dark:bg-slate-900 dark:text-white";

export type ButtonVariant = "primary" | "secondary" | "danger" | "dangerOutline" | "success" | "warning" | "ghost" | "dangerText";
export type ButtonSize = "xs" | "sm" | "md" | "lg" | "icon" | "inline";

const BUTTON_BASE =
  "inline-flex items-center justify-center rounded-md focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-60";
const BUTTON_VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-indigo-600 text-white hover:bg-indigo-700 focus-visible:outline-indigo-500",
  secondary:
    "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800",
  danger: "bg-red-600 text-white hover:bg-red-700 focus-visible:outline-red-500",
  dangerOutline:
    "border border-red-300 text-red-700 hover:bg-red-50 focus-visible:outline-red-500 dark:border-red-900 dark:text-red-300 dark:hover:bg-red-950/40",
  success: "bg-emerald-700 text-white hover:bg-emerald-800 focus-visible:outline-emerald-600",
  warning: "bg-amber-700 text-white hover:bg-amber-800 focus-visible:outline-amber-600",
  ghost:
    "text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white",
  dangerText: "text-red-600 hover:underline focus-visible:outline-red-500 dark:text-red-400",
};
const BUTTON_SIZES: Record<ButtonSize, string> = {
  xs: "gap-1 px-2 py-1 text-xs font-medium",
  sm: "gap-1.5 px-3 py-1.5 text-sm font-medium",
  md: "gap-2 px-4 py-2 font-semibold",
  lg: "gap-2 px-5 py-2.5 font-semibold",
  icon: "p-2",
  inline: "gap-1 text-sm font-medium",
};

/** The classes of a button (or of a link that looks like one). */
export function buttonClass(variant: ButtonVariant = "primary", size: ButtonSize = "md", opts: { block?: boolean } = {}): string {
  return `${BUTTON_BASE} ${BUTTON_VARIANTS[variant]} ${BUTTON_SIZES[size]}${opts.block ? " w-full" : ""}`;
}

export type ButtonProps = ComponentProps<"button"> & { variant?: ButtonVariant; size?: ButtonSize; block?: boolean };

/** The one button of the site; `type` defaults to "button" so only an explicit submit submits. */
export function Button({ variant = "primary", size = "md", block = false, type = "button", className, ...rest }: ButtonProps) {
  const classes = buttonClass(variant, size, { block });
  return <button type={type} className={className ? `${classes} ${className}` : classes} {...rest} />;
}

/** A fieldset of a long form, and its legend. */
export const formSection = "space-y-4 rounded-xl border border-slate-200 p-6 dark:border-slate-800";
export const formLegend = "px-1 text-lg font-semibold";
export const linkClass = "font-medium text-indigo-600 hover:underline dark:text-indigo-400";

const ALERT_COLOURS = {
  error: "border-red-300 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-300",
  warning: "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200",
  success: "border-emerald-300 bg-emerald-50 text-emerald-800 dark:border-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-300",
} as const;

export function Alert({ kind, children }: { kind: keyof typeof ALERT_COLOURS; children: ReactNode }) {
  const Icon = kind === "success" ? CheckCircle2 : AlertCircle;
  return (
    <div
      role={kind === "error" ? "alert" : "status"}
      className={`flex items-start gap-2 rounded-md border px-3 py-2 text-sm ${ALERT_COLOURS[kind]}`}
    >
      <Icon className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
      <span>{children}</span>
    </div>
  );
}

export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="mx-auto w-full max-w-md px-4 py-16">
      <div className="rounded-2xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900/60">
        <h1 className="text-center text-2xl font-bold tracking-tight">{title}</h1>
        <div className="mt-6">{children}</div>
      </div>
    </section>
  );
}

export function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {children}
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      )}
    </div>
  );
}

export function GitHubIcon() {
  return (
    <svg viewBox="0 0 16 16" className="h-5 w-5" aria-hidden fill="currentColor">
      <path d="M8 0C3.58 0 0 3.58 0 8c0 3.54 2.29 6.53 5.47 7.59.4.07.55-.17.55-.38 0-.19-.01-.82-.01-1.49-2.01.37-2.53-.49-2.69-.94-.09-.23-.48-.94-.82-1.13-.28-.15-.68-.52-.01-.53.63-.01 1.08.58 1.23.82.72 1.21 1.87.87 2.33.66.07-.52.28-.87.51-1.07-1.78-.2-3.64-.89-3.64-3.95 0-.87.31-1.59.82-2.15-.08-.2-.36-1.02.08-2.12 0 0 .67-.21 2.2.82.64-.18 1.32-.27 2-.27.68 0 1.36.09 2 .27 1.53-1.04 2.2-.82 2.2-.82.44 1.1.16 1.92.08 2.12.51.56.82 1.27.82 2.15 0 3.07-1.87 3.75-3.65 3.95.29.25.54.73.54 1.48 0 1.07-.01 1.93-.01 2.2 0 .21.15.46.55.38A8.013 8.013 0 0016 8c0-4.42-3.58-8-8-8z" />
    </svg>
  );
}

/** Said only where the browser runs no scripts: the part of the page it stands in needs them (it loads in the browser). */
export function NeedsScript() {
  return (
    <noscript>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">This part of the page needs JavaScript.</p>
    </noscript>
  );
}
