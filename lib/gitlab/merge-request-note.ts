/**
 * One note per merge request, kept up to date: every pipeline of the MR edits
 * the note that carries the marker instead of adding another one.
 *
 * Inputs come from GitLab's predefined CI variables (CI_SERVER_URL,
 * CI_PROJECT_ID, CI_MERGE_REQUEST_IID) and a token variable. CI_JOB_TOKEN
 * cannot write notes, so the token is a project access token with `api` scope
 * (Reporter is enough), kept in a masked CI variable.
 */
import { Gitlab } from "@gitbeaker/rest";
import { OperationalError, UserInputError } from "../errors";
import { redactValue } from "../redact";

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

/** Edits the note whose body contains `marker`, or creates it when there is none. */
export async function upsertMergeRequestNote(target: MergeRequestNoteTarget, body: string, marker: string): Promise<NoteUpsertResult> {
  if (!body.includes(marker)) throw new Error("the note body must contain its marker, or the next run would add a second note");
  const api = new Gitlab({ host: target.serverUrl, token: target.token });
  try {
    // No `page` option: gitbeaker then follows the Link rel="next" headers through every page.
    const notes = await api.MergeRequestNotes.all(target.projectId, target.mergeRequestIid, { perPage: 100, sort: "asc", orderBy: "created_at" });
    const existing = notes.find((note) => !note.system && typeof note.body === "string" && note.body.includes(marker));
    if (existing) {
      await api.MergeRequestNotes.edit(target.projectId, target.mergeRequestIid, existing.id, { body });
      return { action: "updated", noteId: existing.id };
    }
    const created = await api.MergeRequestNotes.create(target.projectId, target.mergeRequestIid, body);
    return { action: "created", noteId: created.id };
  } catch (error) {
    throw noteError(error, target);
  }
}

/** Turns API failures into messages that say what to fix, without the token or the request. */
function noteError(error: unknown, target: MergeRequestNoteTarget): Error {
  if (error instanceof UserInputError || error instanceof OperationalError) return error;
  const where = `merge request !${target.mergeRequestIid} of project ${target.projectId} at ${target.serverUrl}`;
  const status = statusOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  const safe = (text: string) => redactValue(text, target.token);
  switch (status) {
    case 401:
      return new OperationalError(safe(`GitLab rejected the token in ${target.tokenVariable} (401 Unauthorized): it is invalid, expired or revoked`));
    case 403:
      return new OperationalError(
        safe(`the token in ${target.tokenVariable} may not comment on ${where} (403 Forbidden): it needs api scope and at least the Reporter role`),
      );
    case 404:
      return new OperationalError(safe(`${where} was not found (404), or the token in ${target.tokenVariable} cannot see it`));
    case undefined:
      return new OperationalError(safe(`could not reach GitLab at ${target.serverUrl} to post the review note: ${causeText(error) ?? detail}`));
    default:
      return new OperationalError(safe(`GitLab answered ${status} while posting the review note on ${where}: ${detail}`));
  }
}

function statusOf(error: unknown): number | undefined {
  const cause = (error as { cause?: { response?: { status?: unknown } } } | undefined)?.cause;
  const status = cause?.response?.status;
  return typeof status === "number" ? status : undefined;
}

function causeText(error: unknown): string | undefined {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof Error) return `${(error as Error).message} (${cause.message})`;
  return undefined;
}
