import { Loader2, Pencil } from "~/web/components/icons";
import { ORG_TEXT } from "../../../shared/orgs";
import { ConfirmButton } from "../ConfirmButton";
import { Alert, Button, Field, inputClass } from "../ui";
import { Enhanced, useActionForm } from "../../lib/forms";
import { type OrgAnswer } from "./roles";

// The organisation's settings: its name, and leaving or deleting it (each asks first).

export function RenameForm({ name }: { name: string }) {
  const { fetcher, answer, busy } = useActionForm<OrgAnswer>("rename");
  const mine = answer?.form === "rename" ? answer : undefined;
  return (
    <fetcher.Form method="post" className="space-y-3">
      <Enhanced />
      <input type="hidden" name="intent" value="rename" />
      <Field id="org-rename" label={ORG_TEXT.nameLabel} hint={ORG_TEXT.slugStays}>
        <input
          id="org-rename"
          name="name"
          required
          maxLength={80}
          defaultValue={name}
          className={inputClass}
          aria-describedby="org-rename-hint"
        />
      </Field>
      {mine?.error && <Alert kind="error">{mine.error}</Alert>}
      {mine?.message && !mine.error && (
        <p role="status" className="text-sm text-green-700 dark:text-green-400">
          {mine.message}
        </p>
      )}
      <Button type="submit" variant="secondary" disabled={busy}>
        {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Pencil className="h-4 w-4" aria-hidden />}
        {busy ? ORG_TEXT.renaming : ORG_TEXT.rename}
      </Button>
    </fetcher.Form>
  );
}

export function OrgAction({
  intent,
  label,
  icon,
  title,
  text,
}: {
  intent: string;
  label: string;
  icon: React.ReactNode;
  title: string;
  text: string;
}) {
  const { fetcher, answer, busy } = useActionForm<OrgAnswer>(intent);
  const mine = answer?.form === intent ? answer : undefined;
  return (
    <fetcher.Form method="post" className="space-y-2">
      <Enhanced />
      <input type="hidden" name="intent" value={intent} />
      <ConfirmButton
        label={
          <>
            {icon} {label}
          </>
        }
        busy={busy}
        title={title}
        description={text}
        confirmLabel={label}
        cancelLabel={ORG_TEXT.cancel}
        open={Boolean(mine?.error)}
      />
      {mine?.error && <Alert kind="error">{mine.error}</Alert>}
    </fetcher.Form>
  );
}
