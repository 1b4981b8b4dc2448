import { UserInputError } from "../process/errors";
import { redactSecrets } from "../text/redact";

/** A path into the model, as YAML keys and sequence indices: ["shards", 0, "workers", "max_instances"]. */
export type ModelPath = ReadonlyArray<string | number>;

/** One problem found in a model file, located for the person who has to fix it. */
export interface ModelIssue {
  readonly severity: "error" | "warning";
  readonly file: string;
  readonly path: ModelPath;
  /** 1-based line and column of the offending node (or its parent when the key is missing). */
  readonly line: number;
  readonly column: number;
  /** What was expected, in words. */
  readonly expected: string;
  /** Short rendering of the value found, or undefined when nothing was there. */
  readonly received?: string;
  readonly hint?: string;
}

/** `shards[0].workers.max_instances`; `(top level)` for the document itself. */
export function formatPath(path: ModelPath): string {
  if (path.length === 0) return "(top level)";
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join("");
}

/**
 * Every message about a model goes through here (ModelValidationError, the loader's warnings, formatIssue): a
 * token pasted into the wrong key (`gitlab.url: glpat-...`) is echoed as `glpat-xx…****`, never whole, in the
 * text, in `--json` output and wherever a caller formats the issue itself.
 */
export function redactIssue(issue: ModelIssue): ModelIssue {
  return {
    ...issue,
    path: issue.path.map((part) => (typeof part === "string" ? redactSecrets(part) : part)),
    expected: redactSecrets(issue.expected),
    ...(issue.received === undefined ? {} : { received: redactSecrets(issue.received) }),
    ...(issue.hint === undefined ? {} : { hint: redactSecrets(issue.hint) }),
  };
}

export function formatIssue(issue: ModelIssue): string {
  const received = issue.received === undefined ? "" : `, received ${issue.received}`;
  const hint = issue.hint ? ` (${issue.hint})` : "";
  const label = issue.severity === "warning" ? "warning: " : "";
  return redactSecrets(`${issue.file}:${issue.line}:${issue.column}: ${label}${formatPath(issue.path)}: expected ${issue.expected}${received}${hint}`);
}

/** Thrown when a model file has one or more errors; carries all of them. */
export class ModelValidationError extends UserInputError {
  readonly issues: readonly ModelIssue[];

  constructor(readonly file: string, issues: readonly ModelIssue[]) {
    super(
      `${file} is not a valid runner model (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n` +
        issues.map((issue) => `  ${formatIssue(issue)}`).join("\n"),
    );
    this.issues = issues.map(redactIssue);
    this.name = "ModelValidationError";
  }
}

/** Render a received value briefly, so a message never dumps a whole subtree. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "object") return "a mapping";
  // A password in a URL (https://user:secret@host) is never shown, not even in an error about it; nor is a
  // token, redacted before the text is cut short (a cut could leave too little of it to recognize).
  const text = JSON.stringify(typeof value === "string" ? redactSecrets(hideUrlPassword(value)) : value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** "https://user:secret@host" becomes "https://user:****@host". */
export function hideUrlPassword(text: string): string {
  return text.replace(/(\/\/[^/:@\s]*):[^/@\s]*@/g, "$1:****@");
}
