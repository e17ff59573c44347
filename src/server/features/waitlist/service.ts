import { WAITLIST_TEXT } from "~/shared/waitlist.js";
import type { Db } from "../../db/client.js";
import { addToWaitlist } from "./repo.js";

export async function joinWaitlist(db: Db, email: string): Promise<{ created: boolean; message: string }> {
  const created = await addToWaitlist(db, email.trim());
  // The same answer either way: the page does not reveal whether an address was already listed.
  return { created, message: WAITLIST_TEXT.success };
}
