/**
 * ci/fetch-reviewed-plan.sh with the real curl against a local stand-in for GitLab's API
 * (the two endpoints it calls, with the headers and paths GitLab documents in
 * doc/api/commits.md "merge requests associated with a commit" and doc/api/job_artifacts.md
 * "download a single artifact file by reference name"). Real GitLab is not reachable here.
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SCRIPT = join(__dirname, "..", "..", "ci", "fetch-reviewed-plan.sh");
const SHA = "c0ffee".padEnd(40, "0");

interface Seen {
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
}

describe("ci/fetch-reviewed-plan.sh", () => {
  let server: Server;
  let base: string;
  let seen: Seen[];
  let dest: string;
  let mergeRequests: unknown;
  let artifacts: Record<string, string>;
  const reviewToken = `glpat-${randomBytes(15).toString("base64url")}`;
  const jobToken = `glcbt-${randomBytes(15).toString("base64url")}`;

  beforeEach(async () => {
    seen = [];
    dest = join(mkdtempSync(join(tmpdir(), "fetch-plan-")), "reviewed-plan", "cell-1");
    mergeRequests = [{ iid: 17, state: "merged" }];
    artifacts = {
      "plan-out/cell-1/stacks/cell-1/cell-1.tfplan": "PLAN-BYTES",
      "plan-out/cell-1/stacks/cell-1/cell-1.tfplan.inputs.json": '{"format":1}',
    };
    server = createServer((request, response) => {
      seen.push({ url: request.url ?? "", headers: request.headers });
      const url = new URL(request.url ?? "/", "http://localhost");
      if (url.pathname === `/api/v4/projects/42/repository/commits/${SHA}/merge_requests` && request.headers["private-token"] === reviewToken) {
        response.end(JSON.stringify(mergeRequests));
        return;
      }
      const prefix = "/api/v4/projects/42/jobs/artifacts/refs%2Fmerge-requests%2F17%2Fhead/raw/";
      const raw = request.url?.startsWith(prefix) ? decodeURIComponent(url.pathname.slice(prefix.length)) : undefined;
      if (raw && artifacts[raw] !== undefined && url.searchParams.get("job") === "plan:cell-1" && request.headers["job-token"] === jobToken) {
        response.end(artifacts[raw]);
        return;
      }
      response.statusCode = 404;
      response.end('{"message":"404 Not found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
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
  const ciEnv = () => ({ CI_API_V4_URL: base, CI_PROJECT_ID: "42", CI_COMMIT_SHA: SHA, CI_JOB_TOKEN: jobToken, GITLAB_REVIEW_TOKEN: reviewToken });

  it("passes shellcheck", () => {
    const result = spawnSync("shellcheck", [SCRIPT], { encoding: "utf8" });
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
    expect(seen[0].headers["private-token"]).toBe(reviewToken);
    expect(seen.slice(1).every((entry) => entry.headers["job-token"] === jobToken && entry.headers["private-token"] === undefined)).toBe(true);
    expect(result.output).not.toContain(reviewToken);
    expect(result.output).not.toContain(jobToken);
  });

  it("fetches nothing, and exits 0, for a commit that merged no merge request", async () => {
    mergeRequests = [{ iid: 3, state: "opened" }];
    const result = await run(ciEnv());
    expect(result.status).toBe(0);
    expect(result.output).toContain("is not the merge of a merge request");
    expect(existsSync(join(dest, "cell-1.tfplan"))).toBe(false);
  });

  it("leaves no half download when the inputs record is missing", async () => {
    delete artifacts["plan-out/cell-1/stacks/cell-1/cell-1.tfplan.inputs.json"];
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
    expect(seen).toEqual([]);
  });
});
