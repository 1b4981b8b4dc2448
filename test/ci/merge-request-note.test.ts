import { randomBytes } from "node:crypto";
import { OperationalError, UserInputError } from "../../lib/errors";
import { readMergeRequestNoteTarget, upsertMergeRequestNote, type MergeRequestNoteTarget } from "../../lib/gitlab/merge-request-note";
import { REVIEW_MARKER } from "../../lib/review/render-review";
import { startFakeGitLabNotes, type FakeGitLabNotes } from "../support/fake-gitlab-notes";

const PROJECT = "42";
const IID = 7;

/** Tokens are made at run time, never committed. */
const makeToken = () => `glpat-${randomBytes(12).toString("hex")}`;

describe("upsertMergeRequestNote against a fake GitLab", () => {
  const token = makeToken();
  const readOnlyToken = makeToken();
  let gitlab: FakeGitLabNotes;
  let target: MergeRequestNoteTarget;

  beforeEach(async () => {
    gitlab = await startFakeGitLabNotes({ token, readOnlyToken, mergeRequests: [`${PROJECT}!${IID}`] });
    target = readMergeRequestNoteTarget({
      CI_SERVER_URL: gitlab.url,
      CI_PROJECT_ID: PROJECT,
      CI_MERGE_REQUEST_IID: String(IID),
      GITLAB_REVIEW_TOKEN: token,
    });
  });
  afterEach(() => gitlab.close());

  it("creates the note once, then updates it instead of adding another", async () => {
    const first = await upsertMergeRequestNote(target, `${REVIEW_MARKER}\nfirst review`, REVIEW_MARKER);
    const second = await upsertMergeRequestNote(target, `${REVIEW_MARKER}\nsecond review`, REVIEW_MARKER);

    expect(first.action).toBe("created");
    expect(second).toEqual({ action: "updated", noteId: first.noteId });
    expect(gitlab.notes(PROJECT, IID).map((note) => note.body)).toEqual([`${REVIEW_MARKER}\nsecond review`]);
  });

  it("follows pagination to find its note among many comments", async () => {
    gitlab.seed(PROJECT, IID, ["a human comment"]);
    gitlab.seed(PROJECT, IID, [`${REVIEW_MARKER}\nold review`]);
    gitlab.seed(
      PROJECT,
      IID,
      Array.from({ length: 150 }, (_, index) => `comment ${index}`),
    );
    gitlab.seed(PROJECT, IID, [`${REVIEW_MARKER} mentioned by the system`], { system: true });

    const result = await upsertMergeRequestNote(target, `${REVIEW_MARKER}\nnew review`, REVIEW_MARKER);

    expect(result.action).toBe("updated");
    const notes = gitlab.notes(PROJECT, IID);
    expect(notes).toHaveLength(153);
    expect(notes.filter((note) => note.body.includes("new review"))).toHaveLength(1);
    expect(notes[1].body).toBe(`${REVIEW_MARKER}\nnew review`);
    const pages = gitlab.requests.filter((request) => request.method === "GET").map((request) => request.query.page ?? "1");
    expect(pages).toEqual(["1", "2"]);
  });

  it("fails when the token is rejected (401), without the token in the message", async () => {
    const wrong = makeToken();
    const error = await upsertMergeRequestNote({ ...target, token: wrong }, `${REVIEW_MARKER}\nx`, REVIEW_MARKER).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OperationalError);
    expect((error as Error).message).toMatch(/GitLab rejected the token in GITLAB_REVIEW_TOKEN \(401/);
    expect((error as Error).message).not.toContain(wrong);
  });

  it("fails when the token may not write (403)", async () => {
    const error = await upsertMergeRequestNote({ ...target, token: readOnlyToken }, `${REVIEW_MARKER}\nx`, REVIEW_MARKER).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(OperationalError);
    expect((error as Error).message).toMatch(/may not comment on merge request !7 of project 42 .*403 Forbidden/);
  });

  it("fails when the merge request does not exist (404)", async () => {
    const error = await upsertMergeRequestNote({ ...target, mergeRequestIid: 99 }, `${REVIEW_MARKER}\nx`, REVIEW_MARKER).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(OperationalError);
    expect((error as Error).message).toMatch(/merge request !99 of project 42 .* was not found \(404\)/);
  });

  it("fails when GitLab cannot be reached", async () => {
    const error = await upsertMergeRequestNote({ ...target, serverUrl: "http://127.0.0.1:9" }, `${REVIEW_MARKER}\nx`, REVIEW_MARKER).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(OperationalError);
    expect((error as Error).message).toMatch(/could not reach GitLab at http:\/\/127\.0\.0\.1:9/);
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
