/**
 * Checks of the gitlab: settings that decide where the admin token and the job token
 * travel: plain http only on this machine or with the loudly named opt-in (which then
 * warns on every load), and a CA bundle that exists and holds certificates.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { CrossCheckFinding } from "./finding";
import { INSECURE_HTTP_SETTING, insecureHttpWarning, insecureUrlProblem } from "./gitlab-url-policy";
import type { RunnerModel } from "./schema";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/** `baseDir` resolves a relative ca_file. @default process.cwd() */
export function checkGitLabWire(model: RunnerModel, baseDir = process.cwd()): CrossCheckFinding[] {
  const { gitlab } = model;
  const allow = gitlab[INSECURE_HTTP_SETTING];
  const findings: CrossCheckFinding[] = [];
  for (const key of ["url", "clone_url"] as const) {
    const url = gitlab[key];
    if (url === undefined) continue;
    if (insecureUrlProblem(url, allow)) {
      findings.push({
        severity: "error",
        path: ["gitlab", key],
        expected: `an https:// URL: plain http:// carries the token in clear text, so it is accepted only for this machine (localhost, 127.0.0.1, ::1) or with gitlab.${INSECURE_HTTP_SETTING}: true`,
        received: JSON.stringify(url),
      });
    }
    const warning = insecureHttpWarning(url, allow);
    if (warning) findings.push({ severity: "warning", path: ["gitlab", INSECURE_HTTP_SETTING], expected: `false (${warning})`, received: "true" });
  }
  if (gitlab.ca_file !== undefined) {
    const problem = caFileProblem(resolve(baseDir, gitlab.ca_file));
    if (problem) findings.push({ severity: "error", path: ["gitlab", "ca_file"], expected: "a readable PEM file with at least one CERTIFICATE block", received: problem });
  }
  return findings;
}

function caFileProblem(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return `${file}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`;
  }
  return PEM_CERTIFICATE.test(text) ? undefined : `${file} holds no PEM certificate`;
}
