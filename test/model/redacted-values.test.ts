/**
 * A token pasted into the wrong key is refused without being echoed (lib/model/issues.ts redactIssue): the
 * message, the issues a caller reads (prepare --json, import) and the warnings show `glpat-xx…****`.
 */
import { randomBytes } from "node:crypto";
import { formatIssue, ModelValidationError } from "../../lib/model/issues";
import { parseModel } from "../../lib/model/load";
import { BASE_MODEL } from "./invalid-cases";

const token = (prefix: string) => `${prefix}-${randomBytes(15).toString("base64url").replace(/[-_]/g, "x")}`;

function refusal(text: string): ModelValidationError {
  try {
    parseModel(text, "cell-9.yaml");
  } catch (error) {
    if (error instanceof ModelValidationError) return error;
    throw error;
  }
  throw new Error("the model was accepted");
}

describe("values that look like tokens, in messages about the model", () => {
  it("fails when a personal access token is gitlab.url, naming the key and showing only the token's start", () => {
    const pat = token("glpat");
    const error = refusal(BASE_MODEL.replace(/^  url: .*$/m, `  url: ${pat}`));

    expect(error.message).toMatch(new RegExp(`gitlab\\.url: expected .*, received "${pat.slice(0, 8)}…\\*\\*\\*\\*"`));
    expect(error.message).not.toContain(pat);
    expect(JSON.stringify(error.issues)).not.toContain(pat);
    expect(error.issues.map(formatIssue).join("\n")).not.toContain(pat);
  });

  it("fails when a runner token is an unknown key's name or a long value, and keeps it out of every field", () => {
    const runnerToken = token("glrt");
    const error = refusal(`${BASE_MODEL}${runnerToken}: true\n`);

    expect(error.message).toContain("glrt-");
    expect(error.message).not.toContain(runnerToken);
    expect(JSON.stringify(error.issues)).not.toContain(runnerToken);
  });
});
