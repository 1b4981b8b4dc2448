/**
 * Where runner tokens live. Onboarding writes a shard's token here and nowhere else;
 * the shard's managers read it at boot (the raw token is the secret's value in the
 * cloud stores, so a manager needs no parsing).
 *
 * Every store is bound to one model; a shard's secret is named by
 * `secretLocation(model, shard)` in lib/model/names.ts.
 */
import { OperationalError } from "../process/errors";
import type { SecretStoreKind, Shard } from "../model/schema";

/** A shard's runner token and what we know about it. */
export interface StoredRunnerToken {
  /** The runner authentication token (glrt-...). Secret. */
  readonly token: string;
  /** GitLab runner id the token belongs to. */
  readonly runnerId: number;
  /** GitLab instance the runner lives on. */
  readonly gitlabUrl: string;
  /** When GitLab says the token expires (ISO 8601), if it does. */
  readonly tokenExpiresAt?: string | null;
  /** When this token was issued to us (ISO 8601). */
  readonly createdAt: string;
  /** Set when the token came from a reset (rotation or recovery). */
  readonly rotatedAt?: string;
}

export interface SecretStore {
  readonly kind: SecretStoreKind;
  /** True when using the store needs cloud credentials (dry runs then leave it alone). */
  readonly needsCredentials: boolean;
  /** Where the shard's token lives, for people ("local file /x/cell-1--a.json"). Never the value. */
  describe(shard: Shard): string;
  /** The shard's stored token, or undefined when there is none. */
  read(shard: Shard): Promise<StoredRunnerToken | undefined>;
  /** Stores the shard's token, replacing any earlier one. */
  write(shard: Shard, value: StoredRunnerToken): Promise<void>;
  /** Deletes the shard's secret; false when there was none. */
  remove(shard: Shard): Promise<boolean>;
  /** Fails (SecretStoreError) when the store cannot keep tokens safely, before any runner is created. */
  checkWritable?(): Promise<void>;
}

/** Thrown by stores (exit 1); its message never carries a secret value. */
export class SecretStoreError extends OperationalError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SecretStoreError";
  }
}
