/**
 * What GitLab and the secret store hold for one shard, as plain data: the input of the
 * pure plan (./plan.ts), fetched beforehand by ./observe.ts. Holds no secret: the stored
 * token itself stays with the fetch (it is verified there), only its runner id comes here.
 */
import type { RunnerDetails } from "../gitlab/client";

/** The shard's secret in the store. */
export type ObservedSecret =
  /** Not read: a dry run against a cloud store, which would need credentials. */
  | { readonly kind: "unread" }
  | { readonly kind: "absent" }
  /** A token stored for another GitLab instance: ignored, and replaced. */
  | { readonly kind: "foreign"; readonly gitlabUrl: string }
  | { readonly kind: "stored"; readonly runnerId: number };

/** What GitLab says of the stored token (POST /runners/verify). */
export type ObservedToken =
  /** Not asked: a dry run, another mode than reconcile, or no runner the token could belong to. */
  | { readonly kind: "unverified" }
  | { readonly kind: "works" }
  /** Refused, expired, or another runner's: `reason` says which. */
  | { readonly kind: "refused"; readonly reason: string };

export interface ObservedShard {
  readonly secret: ObservedSecret;
  /** The shard's runner: the stored id's, else the oldest carrying the shard's marker. */
  readonly runner?: RunnerDetails;
  readonly foundBy: "stored-id" | "marker" | "none";
  /** Other runners carrying the shard's marker. */
  readonly duplicates: readonly RunnerDetails[];
  /** A stored runner id GitLab no longer knows (the runner was deleted by hand). */
  readonly staleStoredId?: number;
  readonly token: ObservedToken;
  /** The shard's former name, when its runner still carries that name's marker (renamed_from): onboard renames it. */
  readonly renamedFrom?: string;
}
