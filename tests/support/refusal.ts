import { expect } from "vitest";
import { AppError } from "~/server/errors.js";

/** The message of the validation error `f` throws (the user's words); fails the test when it throws none or another. */
export function refusal(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("validation_failed");
    return (err as AppError).message;
  }
  throw new Error("expected a refusal");
}
