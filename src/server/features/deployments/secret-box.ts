import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

// Deployment secrets at rest: AES-256-GCM with a random 96-bit IV per value, so the database
// alone never reveals a user's keys and a tampered value fails to decrypt.
// Format: "v1.<iv>.<tag>.<ciphertext>" (base64url parts).

export class SecretBox {
  private readonly key: Buffer;

  /** Any secret of >= 32 characters; SHA-256 turns it into the 256-bit key. */
  constructor(secret: string) {
    if (secret.length < 32) throw new Error("the secrets key must be at least 32 characters");
    this.key = createHash("sha256").update(`switchboard-secrets:${secret}`).digest();
  }

  seal(values: Record<string, string>): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(values), "utf8"), cipher.final()]);
    return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
  }

  open(sealed: string): Record<string, string> {
    const [v, iv, tag, body] = sealed.split(".");
    if (v !== "v1" || !iv || !tag || body === undefined) throw new Error("unknown secrets format");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    const text = Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    return JSON.parse(text) as Record<string, string>;
  }
}
