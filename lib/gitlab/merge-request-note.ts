/**
 * One note per merge request, kept up to date: every pipeline of the MR edits
 * the note that carries the marker instead of adding another one.
 *
 * Inputs come from GitLab's predefined CI variables (CI_SERVER_URL,
 * CI_PROJECT_ID, CI_MERGE_REQUEST_IID) and a token variable. CI_JOB_TOKEN
 * cannot write notes, so the token is a project access token with `api` scope
 * (Reporter is enough), kept in a masked CI variable.
 */
import { UserInputError } from "../process/errors";
import type * as ClientModule from "./client";
import type { GitLabClientOptions } from "./client";
import { RequestPacer, type RequestTally } from "./request-pacer";
import { SYSTEM_CLOCK } from "./retry";

export const DEFAULT_TOKEN_VARIABLES: readonly string[] = ["GITLAB_REVIEW_TOKEN", "GITLAB_TOKEN"];

export interface MergeRequestNoteTarget {
  readonly serverUrl: string;
  readonly projectId: string;
  readonly mergeRequestIid: number;
  readonly token: string;
  /** The variable the token came from (named in errors, never the value). */
  readonly tokenVariable: string;
}

export interface NoteUpsertResult {
  readonly action: "created" | "updated";
  readonly noteId: number;
  /** What posting asked GitLab: requests, and time waiting for a 429 (counted as onboard and status count theirs). */
  readonly requests: RequestTally;
}

/**
 * Reads the target from CI variables. A token variable named with --token-env
 * is the only one read; otherwise GITLAB_REVIEW_TOKEN, then GITLAB_TOKEN.
 */
export function readMergeRequestNoteTarget(env: NodeJS.ProcessEnv, tokenEnv?: string): MergeRequestNoteTarget {
  const missing: string[] = [];
  const value = (name: string) => {
    const found = env[name]?.trim();
    if (!found) missing.push(name);
    return found ?? "";
  };
  const serverUrl = value("CI_SERVER_URL");
  const projectId = value("CI_PROJECT_ID");
  const iidText = value("CI_MERGE_REQUEST_IID");
  const tokenVariables = tokenEnv ? [tokenEnv] : DEFAULT_TOKEN_VARIABLES;
  const tokenVariable = tokenVariables.find((name) => env[name]?.trim());
  if (!tokenVariable) missing.push(tokenVariables.join(" (or ") + ")".repeat(tokenVariables.length - 1));
  if (missing.length > 0) {
    throw new UserInputError(
      `cannot post the review note: missing CI variable${missing.length === 1 ? "" : "s"} ${missing.join(", ")} ` +
        "(--post runs in a merge request pipeline with a project access token of api scope in a masked variable)",
    );
  }
  const mergeRequestIid = Number(iidText);
  if (!Number.isInteger(mergeRequestIid) || mergeRequestIid <= 0) {
    throw new UserInputError(`CI_MERGE_REQUEST_IID must be a positive integer, got "${iidText}"`);
  }
  if (!/^https?:\/\//.test(serverUrl)) throw new UserInputError(`CI_SERVER_URL must be an http(s) URL, got "${serverUrl}"`);
  return { serverUrl: serverUrl.replace(/\/+$/, ""), projectId, mergeRequestIid, token: env[tokenVariable!]!.trim(), tokenVariable: tokenVariable! };
}

/** How the note's client talks to GitLab: the retry budget and clock, as for onboarding. */
export type NoteConnection = Pick<GitLabClientOptions, "policy" | "clock" | "onRetry" | "attemptTimeoutMs">;

/** Edits the note whose body contains `marker`, or creates it when there is none. Failures are GitLabApiErrors. */
export async function upsertMergeRequestNote(target: MergeRequestNoteTarget, body: string, marker: string, connection: NoteConnection = {}): Promise<NoteUpsertResult> {
  if (!body.includes(marker)) throw new Error("the note body must contain its marker, or the next run would add a second note");
  const where = `merge request !${target.mergeRequestIid} of project ${target.projectId}`;
  // gitbeaker loads only when a note is posted: review and provision start without it.
  const { createMergeRequestNotesClient } = require("./client") as typeof ClientModule;
  // Two or three requests: counted, not paced (a 429 still holds them back).
  const pacer = new RequestPacer({ requestsPerMinute: 0 }, connection.clock ?? SYSTEM_CLOCK);
  const client = createMergeRequestNotesClient({
    ...connection,
    pacer,
    url: target.serverUrl,
    token: target.token,
    tokenEnv: target.tokenVariable,
    urlSource: "$CI_SERVER_URL",
    hints: {
      forbidden: `The token in $${target.tokenVariable} may not comment on ${where}: it needs the api scope and at least the Reporter role.`,
      "not-found": `${where} does not exist, or the token in $${target.tokenVariable} cannot see it`,
    },
  });
  const mergeRequest = { projectId: target.projectId, iid: target.mergeRequestIid };
  const notes = await client.listMergeRequestNotes(mergeRequest, `read the notes of ${where}`);
  const existing = notes.find((note) => !note.system && note.body.includes(marker));
  if (existing) {
    await client.editMergeRequestNote(mergeRequest, existing.id, body, `update the review note on ${where}`);
    return { action: "updated", noteId: existing.id, requests: pacer.tally() };
  }
  const created = await client.createMergeRequestNote(mergeRequest, body, `post the review note on ${where}`);
  return { action: "created", noteId: created.id, requests: pacer.tally() };
}
