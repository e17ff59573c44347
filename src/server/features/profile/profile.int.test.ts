import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createTestApp, linkIn, outbox, signedInUser, type Client, type TestApp } from "~support/app.js";
import { PROFILE_TEXT } from "~/shared/auth.js";

let t: TestApp;
let alice: Client & { id: string };
let bob: Client & { id: string };
beforeAll(async () => {
  t = await createTestApp();
  alice = await signedInUser(t, "alice@example.com");
  bob = await signedInUser(t, "bob@example.com");
});
afterAll(() => t.close());

const q = (sql: string, params: unknown[] = []) => t.db.database.pool.query(sql, params);

describe("PUT /api/users/{id}", () => {
  it("changes the username and answers with its message", async () => {
    const r = await alice.put(`/api/users/${alice.id}`, { username: "alice-w" });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.message).toBe(PROFILE_TEXT.updated);
    expect(body.profile).toMatchObject({ username: "alice-w", email: "alice@example.com", is_admin: false });
    expect(await (await alice.get("/")).text()).toContain("alice-w");
  });

  it("says there is nothing to change when nothing changed", async () => {
    const r = await alice.put(`/api/users/${alice.id}`, { username: "alice-w" });
    expect(r.status).toBe(400);
    expect((await r.json()).error).toBe(PROFILE_TEXT.noChanges);
  });

  it("needs the current password for a new one, and checks it", async () => {
    const missing = await alice.put(`/api/users/${alice.id}`, { password: "new-password-1" });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe(PROFILE_TEXT.currentRequired);
    const wrong = await alice.put(`/api/users/${alice.id}`, { currentPassword: "nope-nope", password: "new-password-1" });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toBe(PROFILE_TEXT.wrongCurrent);
    const short = await alice.put(`/api/users/${alice.id}`, { currentPassword: "password123", password: "short" });
    expect(short.status).toBe(400);
  });

  it("changes the password, keeps this session and ends the others", async () => {
    const other = client(t.app);
    await other.post("/api/auth/sign-in/email", { email: "alice@example.com", password: "password123" });
    const r = await alice.put(`/api/users/${alice.id}`, { currentPassword: "password123", password: "new-password-1" });
    expect(r.status).toBe(200);
    expect(await (await alice.get("/api/auth/get-session")).json()).not.toBeNull();
    expect(await (await other.get("/api/auth/get-session")).json()).toBeNull();
    expect((await client(t.app).post("/api/auth/sign-in/email", { email: "alice@example.com", password: "new-password-1" })).status).toBe(
      200,
    );
  });

  it("refuses a username another user has", async () => {
    const r = await alice.put(`/api/users/${alice.id}`, { username: "BOB" });
    expect(r.status).toBe(409);
    expect((await r.json()).error).toBe(PROFILE_TEXT.usernameTaken);
  });

  it("changes the e-mail address only after the new address is confirmed", async () => {
    const r = await alice.put(`/api/users/${alice.id}`, { email: "alice@new.example" });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.emailChangePending).toBe("alice@new.example");
    expect(body.profile.email).toBe("alice@example.com");
    const mail = (await outbox(t.app)).find((m) => m.to === "alice@new.example");
    const link = new URL(linkIn(mail));
    expect(await (await client(t.app).get(link.pathname + link.search)).text()).toContain('data-outcome="confirmed"');
    const p = await q("select email from profiles where id = $1", [alice.id]);
    expect(p.rows[0].email).toBe("alice@new.example");
    expect((await client(t.app).post("/api/auth/sign-in/email", { email: "alice@new.example", password: "new-password-1" })).status).toBe(
      200,
    );
  });

  it("a wrong current password changes nothing: no confirmation mail goes to a new address asked for with it", async () => {
    const carol = await signedInUser(t, "carol@example.com");
    const wrong = await carol.put(`/api/users/${carol.id}`, {
      email: "carol@elsewhere.example",
      currentPassword: "nope-nope",
      password: "new-password-2",
    });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toBe(PROFILE_TEXT.wrongCurrent);
    expect((await outbox(t.app)).filter((m) => m.to === "carol@elsewhere.example")).toEqual([]);
    // With the right one both change: the new password at once, the e-mail once confirmed (its
    // request made with the session the password change renewed).
    const both = await carol.put(`/api/users/${carol.id}`, {
      email: "carol@elsewhere.example",
      currentPassword: "password123",
      password: "new-password-2",
    });
    expect(both.status, await both.clone().text()).toBe(200);
    expect((await both.json()).emailChangePending).toBe("carol@elsewhere.example");
    expect((await outbox(t.app)).filter((m) => m.to === "carol@elsewhere.example")).toHaveLength(1);
    expect(await (await carol.get("/api/auth/get-session")).json()).not.toBeNull();
    expect((await client(t.app).post("/api/auth/sign-in/email", { email: "carol@example.com", password: "new-password-2" })).status).toBe(
      200,
    );
  });

  it("never lets anyone set is_admin", async () => {
    const r = await alice.put(`/api/users/${alice.id}`, { is_admin: true });
    expect(r.status).toBe(400);
    const p = await q("select is_admin from profiles where id = $1", [alice.id]);
    expect(p.rows[0].is_admin).toBe(false);
  });

  it("answers 401 'User not authenticated' without a session", async () => {
    const r = await client(t.app).put(`/api/users/${alice.id}`, { username: "mallory" });
    expect(r.status).toBe(401);
    expect((await r.json()).error).toBe(PROFILE_TEXT.notAuthenticated);
  });

  it("forbids a second user from changing the first user's profile", async () => {
    const r = await bob.put(`/api/users/${alice.id}`, { username: "hijacked" });
    expect(r.status).toBe(403);
    const p = await q("select username from profiles where id = $1", [alice.id]);
    expect(p.rows[0].username).toBe("alice-w");
  });

  it("does not show a second user the first user's profile page", async () => {
    const html = await (await bob.get("/profile")).text();
    expect(html).not.toContain("alice-w");
    expect(html).toContain('value="bob"');
  });

  it("redirects /profile to /login when signed out", async () => {
    const r = await client(t.app).get("/profile");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/login?redirect=/profile");
  });
});

describe("DELETE /api/users/{id}", () => {
  it("needs the typed e-mail and the owner", async () => {
    const wrong = await bob.del(`/api/users/${bob.id}`, { confirmEmail: "someone@else.com" });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toBe(PROFILE_TEXT.deleteConfirmMismatch);
    const other = await alice.del(`/api/users/${bob.id}`, { confirmEmail: "bob@example.com" });
    expect(other.status).toBe(403);
  });

  it("deletes the account: the session and the credentials stop working", async () => {
    const r = await bob.del(`/api/users/${bob.id}`, { confirmEmail: "BOB@example.com" });
    expect(r.status).toBe(200);
    expect(await (await bob.get("/api/auth/get-session")).json()).toBeNull();
    const login = await client(t.app).post("/api/auth/sign-in/email", { email: "bob@example.com", password: "password123" });
    expect(login.status).toBe(401);
    expect((await q("select count(*)::int as n from profiles where id = $1", [bob.id])).rows[0].n).toBe(0);
    expect((await q('select count(*)::int as n from "session" where user_id = $1', [bob.id])).rows[0].n).toBe(0);
  });
});
