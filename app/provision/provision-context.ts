/**
 * What every step of a provision run shares once its models and flags are validated: where it logs,
 * the environment, the secrets it scrubs from the engine's output, and the modes the steps take.
 */
import type { KnownSecrets } from "../../lib/secrets/known-secrets";
import type { ProvisionMode } from "../commands/provision-options";
import type { RollClock } from "./provision-roll";

/** The modes that run the engine: all but the dry run. */
export type EngineMode = Exclude<ProvisionMode, { kind: "dry-run" }>;
/** The modes that change the cloud after a confirmation. */
export type ChangingMode = Extract<ProvisionMode, { kind: "apply" | "destroy" }>;

export interface StepContext {
  readonly env: NodeJS.ProcessEnv;
  /** The workspace (lib/files/workspace.ts): where onboarding keeps local tokens and takes the cell lock. */
  readonly workspace: string;
  readonly log: (line: string) => void;
  /** Every secret value known to this run; the engine's output is scrubbed of them. */
  readonly secrets: KnownSecrets;
  /** Variables holding GitLab credentials: never passed to the engine. */
  readonly withheld: readonly string[];
  /** Path of the engine executable, for stand-ins. @default - the engine's name on PATH */
  readonly engineExecutable?: string;
  /** The engine's -lock-timeout for plan and apply, already checked. */
  readonly lockTimeout: string;
  /** Asks the person at the terminal; undefined when nobody can answer (no TTY). */
  readonly confirm?: (question: string) => Promise<boolean>;
  /** Clock and pacing of manager rolls (tests). */
  readonly rollClock?: RollClock;
}
