import { and, desc, eq, gt, inArray, lte, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "../../db/client.js";
import { billingEvents, checkoutSessions, subscriptions, user } from "../../db/schema.js";

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type CheckoutRow = typeof checkoutSessions.$inferSelect;
export type { DbOrTx, Tx };

export async function findSubscription(db: DbOrTx, userId: string): Promise<SubscriptionRow | undefined> {
  const [r] = await db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
  return r;
}

/** Every Pro subscription a provider still calls paid (the caller decides which give Pro now: plan.ts). */
export async function paidProSubscriptions(db: DbOrTx, statuses: readonly string[]): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.plan, "pro"), inArray(subscriptions.status, [...statuses])));
}

export async function findSubscriptionById(db: DbOrTx, subscriptionId: string): Promise<SubscriptionRow | undefined> {
  const [r] = await db.select().from(subscriptions).where(eq(subscriptions.subscriptionId, subscriptionId));
  return r;
}

export async function userIdForCustomer(db: DbOrTx, customerId: string): Promise<string | undefined> {
  const [r] = await db.select({ userId: subscriptions.userId }).from(subscriptions).where(eq(subscriptions.customerId, customerId));
  return r?.userId;
}

export async function userExists(db: DbOrTx, userId: string): Promise<boolean> {
  const [r] = await db.select({ id: user.id }).from(user).where(eq(user.id, userId));
  return Boolean(r);
}

export async function saveSubscription(db: DbOrTx, row: Omit<typeof subscriptions.$inferInsert, "updatedAt">): Promise<void> {
  const { userId: _userId, ...rest } = row;
  await db
    .insert(subscriptions)
    .values({ ...row, updatedAt: new Date() })
    .onConflictDoUpdate({ target: subscriptions.userId, set: { ...rest, updatedAt: new Date() } });
}

export async function updateSubscription(db: DbOrTx, userId: string, fields: Partial<Omit<SubscriptionRow, "userId">>): Promise<void> {
  await db
    .update(subscriptions)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(subscriptions.userId, userId));
}

/** Serialises every billing change of one user (checkout, confirmation, webhooks) inside a transaction. */
export async function lockUser(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`billing:${userId}`}, 0))`);
}

/** Records an event id; false when it was already applied (the insert waits for a concurrent one). */
export async function claimEvent(tx: Tx, id: string, type: string): Promise<boolean> {
  const r = await tx.insert(billingEvents).values({ id, type }).onConflictDoNothing().returning({ id: billingEvents.id });
  return r.length > 0;
}

export async function openCheckout(db: DbOrTx, userId: string): Promise<CheckoutRow | undefined> {
  const [r] = await db
    .select()
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.userId, userId),
        eq(checkoutSessions.status, "open"),
        gt(checkoutSessions.expiresAt, sql`now() + interval '1 hour'`),
      ),
    )
    .orderBy(desc(checkoutSessions.createdAt))
    .limit(1);
  return r;
}

export async function findCheckout(db: DbOrTx, id: string): Promise<CheckoutRow | undefined> {
  const [r] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  return r;
}

export async function insertCheckout(db: DbOrTx, row: typeof checkoutSessions.$inferInsert): Promise<void> {
  await db.insert(checkoutSessions).values(row);
}

export async function setCheckoutStatus(db: DbOrTx, id: string, status: string): Promise<void> {
  await db.update(checkoutSessions).set({ status }).where(eq(checkoutSessions.id, id));
}

/** Built-in test-mode subscriptions whose period has ended. */
export async function endedTestSubscriptions(db: DbOrTx): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.provider, "test"), eq(subscriptions.plan, "pro"), lte(subscriptions.currentPeriodEnd, sql`now()`)));
}

export async function stripeSubscriptions(db: DbOrTx): Promise<SubscriptionRow[]> {
  return db.select().from(subscriptions).where(eq(subscriptions.provider, "stripe"));
}
