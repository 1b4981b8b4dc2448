/**
 * ci/fetch-reviewed-plan.sh with the real curl against the fake GitLab (the two endpoints it
 * calls, with the headers and paths GitLab documents in doc/api/commits.md "merge requests
 * associated with a commit" and doc/api/job_artifacts.md "download a single artifact file by
 * reference name"). Real GitLab is not reachable here.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeMergeRequest } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { headerText, startHostileServer, type HostileServer } from "../support/hostile-server";
import { validatorPath } from "../support/validators";

const SCRIPT = join(__dirname, "..", "..", "ci", "fetch-reviewed-plan.sh");
const SHA = "c0ffee".padEnd(40, "0");

const PLAN = "plan-out/cell-1/stacks/cell-1/cell-1.tfplan";
const REF = "refs/merge-requests/17/head";

describe("ci/fetch-reviewed-plan.sh", () => {
  const gitlab = useFakeGitLab();
  let dest: string;
  let reviewed: FakeMergeRequest;

  beforeEach(() => {
    dest = join(mkdtempSync(join(tmpdir(), "fetch-plan-")), "reviewed-plan", "cell-1");
    reviewed = gitlab.fake.mergeRequests.addMergeRequest("42", 17, { state: "merged", commits: [SHA] });
    gitlab.fake.artifacts.add("42", REF, "plan:cell-1", PLAN, "PLAN-BYTES");
    gitlab.fake.artifacts.add("42", REF, "plan:cell-1", `${PLAN}.inputs.json`, '{"format":1}');
  });
  afterEach(() => {
    rmSync(join(dest, "..", ".."), { recursive: true, force: true });
  });

  const run = (env: Record<string, string>) =>
    new Promise<{ status: number; output: string }>((resolve) => {
      const child = spawn("sh", [SCRIPT, "cell-1", dest], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env } });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.on("close", (code) => resolve({ status: code ?? -1, output }));
    });
  // The review token: a project access token with api scope (here the fake's read-only one: listing is all it does).
  const ciEnv = () => ({
    CI_API_V4_URL: `${gitlab.fake.url}/api/v4`,
    CI_PROJECT_ID: "42",
    CI_COMMIT_SHA: SHA,
    CI_JOB_TOKEN: gitlab.fake.jobToken,
    GITLAB_REVIEW_TOKEN: gitlab.fake.readOnlyToken,
  });

  it("passes shellcheck", () => {
    const result = spawnSync(validatorPath("shellcheck"), [SCRIPT], { encoding: "utf8" });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("finds the merged merge request and fetches its plan and inputs record for the cell", async () => {
    const result = await run(ciEnv());
    expect(result.status).toBe(0);
    expect(result.output).toContain("fetched the plan merge request !17 reviewed for cell-1");
    expect(readFileSync(join(dest, "cell-1.tfplan"), "utf8")).toBe("PLAN-BYTES");
    expect(readFileSync(join(dest, "cell-1.tfplan.inputs.json"), "utf8")).toBe('{"format":1}');
    // The review token only lists merge requests; artifacts come with the job token.
    const requests = gitlab.fake.requests;
    expect(requests.map((request) => [request.path, request.credentials, request.status])).toEqual([
      [`/api/v4/projects/42/repository/commits/${SHA}/merge_requests`, ["private-token"], 200],
      [`/api/v4/projects/42/jobs/artifacts/refs%2Fmerge-requests%2F17%2Fhead/raw/${PLAN}`, ["job-token"], 200],
      [`/api/v4/projects/42/jobs/artifacts/refs%2Fmerge-requests%2F17%2Fhead/raw/${PLAN}.inputs.json`, ["job-token"], 200],
    ]);
    expect(result.output).not.toContain(gitlab.fake.readOnlyToken);
    expect(result.output).not.toContain(gitlab.fake.jobToken);
  });

  it("fetches nothing, and exits 0, for a commit that merged no merge request", async () => {
    reviewed.state = "opened";
    const result = await run(ciEnv());
    expect(result.status).toBe(0);
    expect(result.output).toContain("is not the merge of a merge request");
    expect(existsSync(join(dest, "cell-1.tfplan"))).toBe(false);
  });

  it("leaves no half download when the inputs record is missing", async () => {
    gitlab.fake.artifacts.remove("42", REF, "plan:cell-1", `${PLAN}.inputs.json`);
    const result = await run(ciEnv());
    expect(result.status).toBe(0);
    expect(result.output).toContain("has no plan artifact");
    expect(existsSync(join(dest, "cell-1.tfplan"))).toBe(false);
  });

  it("says why outside a GitLab job, or without the review token, and exits 0", async () => {
    expect((await run({})).output).toContain("not in a GitLab job");
    const { GITLAB_REVIEW_TOKEN: _token, ...withoutToken } = ciEnv();
    const result = await run(withoutToken);
    expect(result.status).toBe(0);
    expect(result.output).toContain("GITLAB_REVIEW_TOKEN is not set");
    expect(gitlab.fake.requests).toEqual([]);
  });

  describe("against a GitLab that redirects", () => {
    let hostile: HostileServer;
    let elsewhere: HostileServer;
    beforeEach(async () => {
      elsewhere = await startHostileServer((_request, response) => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('[{"iid": 17, "state": "merged"}]');
      });
      hostile = await startHostileServer((request, response) => {
        response.writeHead(302, { location: `${elsewhere.url}${request.url}?private_token=leak` });
        response.end();
      });
    });
    afterEach(async () => {
      await hostile.stop();
      await elsewhere.stop();
    });

    it("never sends a token to the redirect's target, says so, fetches nothing and exits 0", async () => {
      const result = await run({ ...ciEnv(), CI_API_V4_URL: `${hostile.url}/api/v4` });
      expect(result.status).toBe(0);
      expect(elsewhere.requests).toEqual([]);
      expect(headerText(hostile.requests)).toContain(gitlab.fake.readOnlyToken);
      expect(result.output).toContain(`refused a redirect (302) to ${elsewhere.url}/api/v4/projects/42/repository/commits/`);
      expect(result.output).not.toContain("private_token");
      expect(result.output).not.toContain(gitlab.fake.readOnlyToken);
      expect(existsSync(join(dest, "cell-1.tfplan"))).toBe(false);
    });

    it("refuses a redirect of the artifact download too (the job token stays home)", async () => {
      // The merge request listing is answered; only the artifact download redirects.
      hostile.handle = (request, response) => {
        if (request.url?.includes("/merge_requests")) {
          response.writeHead(200, { "content-type": "application/json" });
          return void response.end('[{"iid": 17, "state": "merged"}]');
        }
        response.writeHead(307, { location: `${elsewhere.url}/bucket/plan` });
        response.end();
      };
      const result = await run({ ...ciEnv(), CI_API_V4_URL: `${hostile.url}/api/v4` });
      expect(result.status).toBe(0);
      expect(elsewhere.requests).toEqual([]);
      expect(result.output).toContain(`refused a redirect (307) to ${elsewhere.url}/bucket/plan`);
      expect(existsSync(join(dest, "cell-1.tfplan"))).toBe(false);
    });
  });
});
