/**
 * The client's own check of where the token goes, for URLs that do not come from a model
 * (the review note's CI_SERVER_URL) and as a second line behind the model's check.
 */
import { createGitLabClient, createMergeRequestNotesClient } from "../../lib/gitlab/client";
import { UserInputError } from "../../lib/process/errors";

const TOKEN = "glpat-plainHttpTest012345";

test("fails before any request when the URL is plain http on another host", () => {
  const make = () => createMergeRequestNotesClient({ url: "http://gitlab.example.com", token: TOKEN, tokenEnv: "GITLAB_REVIEW_TOKEN" });
  expect(make).toThrow(UserInputError);
  expect(make).toThrow("refusing to send the GitLab token in $GITLAB_REVIEW_TOKEN: http://gitlab.example.com is plain http on a host that is not this machine");
});

test("the loudly named opt-in lets it through, with a warning each time a client is made", () => {
  const warnings: string[] = [];
  createGitLabClient({ url: "http://gitlab.internal", token: TOKEN, tokenEnv: "GITLAB_TOKEN", allowInsecureHttp: true, warn: (line) => warnings.push(line) });
  expect(warnings).toEqual([expect.stringContaining("the GitLab token is sent in clear text to http://gitlab.internal")]);
  expect(warnings.join("")).not.toContain(TOKEN);
});

test("https and loopback http need no opt-in and warn nothing", () => {
  const warnings: string[] = [];
  for (const url of ["https://gitlab.example.com", "http://127.0.0.1:8080", "http://localhost"]) {
    createGitLabClient({ url, token: TOKEN, tokenEnv: "GITLAB_TOKEN", warn: (line) => warnings.push(line) });
  }
  expect(warnings).toEqual([]);
});
