import { randomBytes } from "node:crypto";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { GitLabApiError } from "../../lib/gitlab/errors";
import { readMergeRequestNoteTarget, upsertMergeRequestNote, type MergeRequestNoteTarget } from "../../lib/gitlab/merge-request-note";
import { REVIEW_MARKER } from "../../lib/review/render-review";
import { fakeClock } from "../onboard/helpers";
import { closedPort, useFakeGitLab } from "../support/fake-gitlab-setup";

const PROJECT = "42";
const IID = 7;

/** Tokens are made at run time, never committed. */
const makeToken = () => `glpat-${randomBytes(12).toString("hex")}`;

describe("upsertMergeRequestNote against the fake GitLab", () => {
  const gitlab = useFakeGitLab();
  let target: MergeRequestNoteTarget;
  const notes = () => gitlab.fake.mergeRequests.notes(PROJECT, IID);
  const seed = (bodies: string[], options?: { system?: boolean }) => gitlab.fake.mergeRequests.seed(PROJECT, IID, bodies, options);

  beforeEach(() => {
    gitlab.fake.mergeRequests.addMergeRequest(PROJECT, IID);
    target = readMergeRequestNoteTarget({
      CI_SERVER_URL: gitlab.fake.url,
      CI_PROJECT_ID: PROJECT,
      CI_MERGE_REQUEST_IID: String(IID),
      GITLAB_REVIEW_TOKEN: gitlab.fake.adminToken,
    });
  });

  it("creates the note once, then updates it instead of adding another", async () => {
    const first = await upsertMergeRequestNote(target, `${REVIEW_MARKER}\nfirst review`, REVIEW_MARKER);
    const second = await upsertMergeRequestNote(target, `${REVIEW_MARKER}\nsecond review`, REVIEW_MARKER);

    expect(first.action).toBe("created");
    expect(second).toMatchObject({ action: "updated", noteId: first.noteId });
    // What each post asked GitLab: the notes, then the create or the edit.
    expect([first.requests.requests, second.requests.requests]).toEqual([2, 2]);
    expect(notes().map((note) => note.body)).toEqual([`${REVIEW_MARKER}\nsecond review`]);
  });

  it("follows pagination to find its note among many comments", async () => {
    seed(["a human comment"]);
    seed([`${REVIEW_MARKER}\nold review`]);
    seed(Array.from({ length: 150 }, (_, index) => `comment ${index}`));
    seed([`${REVIEW_MARKER} mentioned by the system`], { system: true });

    const result = await upsertMergeRequestNote(target, `${REVIEW_MARKER}\nnew review`, REVIEW_MARKER);

    expect(result.action).toBe("updated");
    const all = notes();
    expect(all).toHaveLength(153);
    expect(all.filter((note) => note.body.includes("new review"))).toHaveLength(1);
    expect(all[1].body).toBe(`${REVIEW_MARKER}\nnew review`);
    const pages = gitlab.fake.requests.filter((request) => request.method === "GET").map((request) => new URLSearchParams(request.query).get("page") ?? "1");
    expect(pages).toEqual(["1", "2"]);
  });

  it("fails when the token is rejected (401), without the token in the message", async () => {
    const wrong = makeToken();
    const error = await upsertMergeRequestNote({ ...target, token: wrong }, `${REVIEW_MARKER}\nx`, REVIEW_MARKER).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(GitLabApiError);
    expect(error).toMatchObject({ kind: "unauthorized", status: 401 });
    expect((error as Error).message).toMatch(/rejected the token in \$GITLAB_REVIEW_TOKEN \(.*401/);
    expect((error as Error).message).not.toContain(wrong);
  });

  it("fails when the token may not write (403)", async () => {
    const error = await upsertMergeRequestNote({ ...target, token: gitlab.fake.readOnlyToken }, `${REVIEW_MARKER}\nx`, REVIEW_MARKER).catch(
      (caught: unknown) => caught,
    );

    expect(error).toMatchObject({ kind: "forbidden", status: 403 });
    expect((error as Error).message).toMatch(/403 "insufficient_scope.*may not comment on merge request !7 of project 42: it needs the api scope/);
    expect(notes()).toEqual([]);
  });

  it("fails when the merge request does not exist (404)", async () => {
    const error = await upsertMergeRequestNote({ ...target, mergeRequestIid: 99 }, `${REVIEW_MARKER}\nx`, REVIEW_MARKER).catch(
      (caught: unknown) => caught,
    );

    expect(error).toMatchObject({ kind: "not-found", status: 404 });
    expect((error as Error).message).toMatch(/answered 404 .*merge request !99 of project 42 does not exist/);
  });

  it("fails when GitLab cannot be reached, at once", async () => {
    const clock = fakeClock();
    const connection = { clock, policy: { budgetMs: 5_000, baseDelayMs: 500, maxDelayMs: 2_000 } };
    const serverUrl = `http://127.0.0.1:${await closedPort()}`;
    const error = await upsertMergeRequestNote({ ...target, serverUrl }, `${REVIEW_MARKER}\nx`, REVIEW_MARKER, connection).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(OperationalError);
    expect(error).toMatchObject({ kind: "not-reached" });
    const port = new URL(serverUrl).port;
    expect((error as Error).message).toBe(
      `cannot reach GitLab at ${serverUrl}: the connection to 127.0.0.1:${port} was refused: nothing listens there. Check $CI_SERVER_URL (host and port) and that GitLab is running.`,
    );
    // The first request found nothing there: not retried.
    expect(clock.waits).toEqual([]);
  });

  it("waits what a 429 asks, and does not post twice", async () => {
    const clock = fakeClock();
    gitlab.fake.rateLimitNext("POST", /\/merge_requests\/7\/notes$/, 1, { retryAfterSeconds: 4 });

    const result = await upsertMergeRequestNote(target, `${REVIEW_MARKER}\nrated`, REVIEW_MARKER, { clock });

    expect(result.action).toBe("created");
    expect(clock.waits).toEqual([4_000]);
    expect(result.requests).toMatchObject({ requests: 3, rateLimited: 1, rateLimitWaitMs: 4_000 });
    expect(notes().map((note) => note.body)).toEqual([`${REVIEW_MARKER}\nrated`]);
  });

  it("does not post again after a 5xx: the note may exist", async () => {
    const clock = fakeClock();
    gitlab.fake.failNext("POST", /\/merge_requests\/7\/notes$/, 1, 502);

    const error = await upsertMergeRequestNote(target, `${REVIEW_MARKER}\nx`, REVIEW_MARKER, { clock }).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ kind: "server", status: 502, outcomeUnknown: true });
    expect(gitlab.fake.requests.filter((request) => request.method === "POST")).toHaveLength(1);
  });
});

describe("readMergeRequestNoteTarget", () => {
  it("fails when CI variables are missing, naming every one", () => {
    expect(() => readMergeRequestNoteTarget({ CI_PROJECT_ID: "42" })).toThrow(UserInputError);
    expect(() => readMergeRequestNoteTarget({ CI_PROJECT_ID: "42" })).toThrow(
      /missing CI variables CI_SERVER_URL, CI_MERGE_REQUEST_IID, GITLAB_REVIEW_TOKEN \(or GITLAB_TOKEN\)/,
    );
  });

  it("falls back to GITLAB_TOKEN, and reads only the variable named by --token-env", () => {
    const token = makeToken();
    const env = { CI_SERVER_URL: "https://gitlab.example.com/", CI_PROJECT_ID: "42", CI_MERGE_REQUEST_IID: "7", GITLAB_TOKEN: token };

    expect(readMergeRequestNoteTarget(env)).toMatchObject({ serverUrl: "https://gitlab.example.com", tokenVariable: "GITLAB_TOKEN", token });
    expect(() => readMergeRequestNoteTarget(env, "REVIEW_BOT_TOKEN")).toThrow(/missing CI variable REVIEW_BOT_TOKEN/);
  });

  it("fails when the merge request iid is not a number", () => {
    const env = { CI_SERVER_URL: "https://gitlab.example.com", CI_PROJECT_ID: "42", CI_MERGE_REQUEST_IID: "abc", GITLAB_TOKEN: "x".repeat(20) };
    expect(() => readMergeRequestNoteTarget(env)).toThrow(/CI_MERGE_REQUEST_IID must be a positive integer, got "abc"/);
  });
});
