/**
 * Trigger variables come from another project's pipeline: they are data, never text.
 * Hostile values are refused before anything is written, and what is written stays
 * inside the models directory.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Testing } from "cdktf";
import { generateModel } from "../../app/prepare/generate-model";
import { parseModel } from "../../lib/model/load";
import { TRIGGER_VARIABLES } from "../../lib/model/trigger-variables";
import { writeModelFile } from "../../lib/model/write-model-file";
import { backendEnvironment } from "../../lib/terraform/backend-env";
import { CellStack } from "../../stacks/cell-stack";
import { runBin, runInProcess, STACK_TRACE_LINE } from "../support/cli";

const GOOGLE_VARIABLES = {
  CELL_ID: "cell-7",
  GITLAB_URL: "https://cell-7.gitlab.example.com",
  CLOUD: "google",
  REGION: "us-east1",
  PROJECT: "acme-runners-cell-7",
};

const triggerEnv = (variables: Record<string, string>): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...variables });

let scratch: string;
let dir: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "generate-hostile-"));
  dir = join(scratch, "models");
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** Every file under the scratch directory, so a write anywhere in it is seen. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("prepare --generate refuses hostile trigger variables and writes nothing", () => {
  // bin/prepare itself here; the other cases run in process, through the same runCli path.
  it("does not follow a CELL_ID out of the models directory", () => {
    const outside = join(scratch, "outside");
    const cellId = `cell-7 #/../../${basename(outside)}/pwned`;

    const result = runBin("prepare", ["--generate", "--models-dir", dir], { env: triggerEnv({ ...GOOGLE_VARIABLES, CELL_ID: cellId }) });

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("variable CELL_ID: expected a DNS label");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(existsSync(join(outside, "pwned.yaml"))).toBe(false);
    expect(filesUnder(scratch)).toEqual([]);
  });

  it.each([
    ["SHARD_NAME", "small\n    docker: {privileged: true}"],
    ["RUNNER_TAGS", "linux\n    docker:\n      privileged: true"],
    ["MANAGER_MACHINE_TYPE", "e2-standard-2\n    docker: {privileged: true}"],
    ["GITLAB_TOKEN_ENV", "GITLAB_TOKEN\nshards: []"],
    ["REGION", "us-east1\r\nnetwork: {nat: false}"],
  ])("refuses a line break in %s (YAML injection) with exit 2", async (name, value) => {
    const result = await runInProcess("prepare", ["--generate", "--models-dir", dir, "--json"], { env: triggerEnv({ ...GOOGLE_VARIABLES, [name]: value }) });

    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${name}: expected a single line without control characters, received ${JSON.stringify(value)}`);
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, exitCode: 2 });
    expect(filesUnder(scratch)).toEqual([]);
  });

  // Every variable the generator reads, not only the ones above: a new one must be checked too.
  it.each(Object.keys(TRIGGER_VARIABLES))("refuses a control character in %s with exit 2, writing nothing", async (name) => {
    const base = (GOOGLE_VARIABLES as Record<string, string>)[name] ?? "x";
    const value = `${base}\u0007`;
    const result = await runInProcess("prepare", ["--generate", "--models-dir", dir, "--json"], { env: triggerEnv({ ...GOOGLE_VARIABLES, [name]: value }) });

    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${name}: expected a single line without control characters`);
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(filesUnder(scratch)).toEqual([]);
  });

  it("reports every bad variable at once", async () => {
    const result = await runInProcess("prepare", ["--generate", "--models-dir", dir], {
      env: triggerEnv({ ...GOOGLE_VARIABLES, SHARD_NAME: "a\nb", RUNNER_TAGS: "x\ty" }),
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("SHARD_NAME:");
    expect(result.stderr).toContain("RUNNER_TAGS:");
  });
});

describe("generated models are built as data", () => {
  it("keeps YAML syntax in a value a plain string: no comment, no mapping, no alias", () => {
    const { loaded } = generateModel({ ...GOOGLE_VARIABLES, RUNNER_TAGS: "linux: {privileged: true} #x, *anchor, &a b" }, {});
    expect(loaded.model.shards[0].tags).toEqual(["linux: {privileged: true} #x", "*anchor", "&a b"]);
    expect(loaded.model.shards[0].docker.privileged).toBe(false);
  });

  it("refuses a machine type with a YAML comment instead of cutting it at the comment", () => {
    expect(() => generateModel({ ...GOOGLE_VARIABLES, MANAGER_MACHINE_TYPE: "e2-standard-2 #evil" })).toThrow(
      /variable MANAGER_MACHINE_TYPE: expected a Google Cloud machine type .* received "e2-standard-2 #evil"/,
    );
  });

  it("keeps the explanatory comments and loads back to the same model", () => {
    const { text, loaded } = generateModel(GOOGLE_VARIABLES, { now: new Date("2026-01-02T03:04:05Z") });
    expect(text).toMatch(/^# yaml-language-server: \$schema=\.\/schema\.json\n/);
    expect(text).toContain("# Generated by `./bin/prepare --generate` for cell cell-7 on 2026-01-02T03:04:05.000Z.");
    expect(text).toContain("# Where onboard stores the runner tokens and the managers read them at boot.\nsecrets:");
    expect(parseModel(text, "again.yaml").model).toEqual(loaded.model);
  });
});

describe("writeModelFile", () => {
  it("refuses a name that is not a plain file name in the directory", () => {
    for (const name of ["../x", "a/b", "cell-7 #/../../x", ".hidden", ""]) {
      expect(() => writeModelFile(dir, name, "cell: {}\n", { replace: true })).toThrow(/CELL_ID/);
    }
    expect(existsSync(dir)).toBe(false);
  });

  it("writes atomically, leaves no temporary file, and keeps an existing model unless told to replace it", () => {
    expect(writeModelFile(dir, "cell-7", "first\n", { replace: false }).outcome).toBe("written");
    expect(writeModelFile(dir, "cell-7", "second\n", { replace: false }).outcome).toBe("exists");
    expect(readdirSync(dir)).toEqual(["cell-7.yaml"]);
    expect(readFileSync(join(dir, "cell-7.yaml"), "utf8")).toBe("first\n");
    expect(writeModelFile(dir, "cell-7", "third\n", { replace: true }).outcome).toBe("written");
    expect(readdirSync(dir)).toEqual(["cell-7.yaml"]);
    expect(readFileSync(join(dir, "cell-7.yaml"), "utf8")).toBe("third\n");
  });
});

describe("a model generated in CI keeps its state outside the job", () => {
  const ciEnv = { CI: "true", CI_PROJECT_ID: "4242", CI_API_V4_URL: "https://models.gitlab.example.com/api/v4" };

  it("defaults to GitLab-managed state of the models project, read with the job token", () => {
    const { loaded } = generateModel(GOOGLE_VARIABLES, { env: ciEnv });
    expect(loaded.model.state).toMatchObject({ backend: "http", project_id: 4242, api_url: ciEnv.CI_API_V4_URL, username: "gitlab-ci-token", password_env: "CI_JOB_TOKEN" });

    const stack = new CellStack(Testing.app(), { model: loaded.model, workDir: "/srv/fleet" });
    const backend = JSON.parse(Testing.synth(stack)).terraform.backend.http;
    const address = "https://models.gitlab.example.com/api/v4/projects/4242/terraform/state/cell-7";
    expect(backend).toMatchObject({ address, lock_address: `${address}/lock`, unlock_address: `${address}/lock` });
    expect(backend.password).toBeUndefined();

    const jobToken = `glcbt-${Math.random().toString(36).slice(2)}`;
    expect(backendEnvironment(loaded.model, { CI_JOB_TOKEN: jobToken })).toEqual({ TF_HTTP_USERNAME: "gitlab-ci-token", TF_HTTP_PASSWORD: jobToken });
  });

  it("keeps local state outside CI", () => {
    expect(generateModel(GOOGLE_VARIABLES, { env: {} }).loaded.model.state).toEqual({ backend: "local" });
  });

  it("uses the backend the trigger variables name", () => {
    const gcs = generateModel({ ...GOOGLE_VARIABLES, STATE_BACKEND: "gcs", STATE_BUCKET: "acme-tf-state" }, { env: ciEnv });
    expect(gcs.loaded.model.state).toEqual({ backend: "gcs", bucket: "acme-tf-state" });
    const local = generateModel({ ...GOOGLE_VARIABLES, STATE_BACKEND: "local" }, { env: ciEnv });
    expect(local.loaded.model.state).toEqual({ backend: "local" });
  });

  it("is written by prepare --generate under CI=true, and refused when the project is unknown", async () => {
    const written = await runInProcess("prepare", ["--generate", "--models-dir", dir, "--json"], { env: triggerEnv({ ...GOOGLE_VARIABLES, ...ciEnv }) });
    expect(written.status).toBe(0);
    expect(readFileSync(join(dir, "cell-7.yaml"), "utf8")).toContain("backend: http");

    rmSync(dir, { recursive: true });
    const refused = await runInProcess("prepare", ["--generate", "--models-dir", dir], { env: triggerEnv({ ...GOOGLE_VARIABLES, CI: "true" }) });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("STATE_PROJECT (or CI_PROJECT_ID)");
    expect(existsSync(dir)).toBe(false);
  });

  it("refuses a bucket backend without a bucket", async () => {
    writeFileSync(join(scratch, "vars.json"), JSON.stringify({ ...GOOGLE_VARIABLES, STATE_BACKEND: "s3" }));
    const result = await runInProcess("prepare", ["--generate", "--vars-file", join(scratch, "vars.json"), "--models-dir", dir], { env: triggerEnv({}) });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("STATE_BUCKET: missing");
  });
});
