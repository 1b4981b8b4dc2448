/** What one check across a model's fields found: an error refuses the model, a warning is printed. */
import type { ModelPath } from "./issues";

export interface CrossCheckFinding {
  readonly severity: "error" | "warning";
  readonly path: ModelPath;
  readonly expected: string;
  readonly received?: string;
  /** What would pass, when there is one to offer ("did you mean ...?"). */
  readonly hint?: string;
}
