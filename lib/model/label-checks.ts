/**
 * `cell.labels` by the rules of the model's own cloud: Google Cloud labels on a Google
 * model, AWS tags on an AWS model. AWS accepts keys such as "CostCenter" and values such as
 * "Platform CI" that Google refuses, and many AWS tag policies require them.
 *
 * - Google Cloud, "Requirements for labels", https://cloud.google.com/compute/docs/labeling-resources:
 *   keys 1-63 characters, lowercase letters, digits, '_' and '-', starting with a lowercase
 *   letter; values 0-63 of the same characters.
 * - AWS, "Tag naming limits and requirements",
 *   https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html: keys 1-128 and values
 *   0-256 Unicode characters; letters, digits, spaces and _ . : / = + - @; the prefix "aws:" is
 *   reserved for AWS.
 * Each finding names the key: a bad key points at the key, a bad value at the value.
 */
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";

const GOOGLE_KEY = /^[a-z][a-z0-9_-]{0,62}$/;
const GOOGLE_VALUE = /^[a-z0-9_-]{0,63}$/;
const AWS_CHARACTERS = /^[\p{L}\p{N}\p{Zs}_.:/=+\-@]*$/u;

export function checkCellLabels(model: RunnerModel): CrossCheckFinding[] {
  const findings: CrossCheckFinding[] = [];
  const google = model.cloud.provider === "google";
  for (const [key, value] of Object.entries(model.cell.labels)) {
    const path = ["cell", "labels", key];
    const keyProblem = google ? googleKeyProblem(key) : awsKeyProblem(key);
    if (keyProblem) findings.push({ severity: "error", path, expected: keyProblem, received: `the key ${JSON.stringify(key)}` });
    const valueProblem = google ? googleValueProblem(value) : awsValueProblem(value);
    if (valueProblem) findings.push({ severity: "error", path, expected: valueProblem, received: `${JSON.stringify(value)} for the key ${JSON.stringify(key)}` });
  }
  return findings;
}

function googleKeyProblem(key: string): string | undefined {
  return GOOGLE_KEY.test(key)
    ? undefined
    : "a Google Cloud label key: 1 to 63 lowercase letters, digits, '_' or '-', starting with a lowercase letter";
}

function googleValueProblem(value: string): string | undefined {
  return GOOGLE_VALUE.test(value) ? undefined : "a Google Cloud label value: at most 63 lowercase letters, digits, '_' or '-'";
}

function awsKeyProblem(key: string): string | undefined {
  if (key.length < 1 || [...key].length > 128 || !AWS_CHARACTERS.test(key)) {
    return "an AWS tag key: 1 to 128 letters, digits, spaces or _ . : / = + - @";
  }
  if (key.toLowerCase().startsWith("aws:")) return 'an AWS tag key without the prefix "aws:", which AWS reserves for its own tags';
  return undefined;
}

function awsValueProblem(value: string): string | undefined {
  return [...value].length <= 256 && AWS_CHARACTERS.test(value)
    ? undefined
    : "an AWS tag value: at most 256 letters, digits, spaces or _ . : / = + - @";
}
