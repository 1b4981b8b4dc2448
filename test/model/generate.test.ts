import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserInputError } from "../../lib/process/errors";
import { generateModel } from "../../app/prepare/generate-model";
import { loadModelFile } from "../../lib/model/load";
import { runBin, runInProcess, STACK_TRACE_LINE } from "../support/cli";

const GOOGLE_VARIABLES = {
  CELL_ID: "cell-7",
  GITLAB_URL: "https://cell-7.gitlab.example.com",
  CLOUD: "google",
  REGION: "us-east1",
  PROJECT: "acme-runners-cell-7",
};

/** The environment a trigger would pass, without the developer's own variables leaking in. */
function triggerEnv(variables: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...variables };
}

describe("prepare --generate", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "generate-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // bin/prepare itself here; the other cases run in process, through the same runCli path.
  it("writes a model from trigger variables that loads with the values given", () => {
    const result = runBin("prepare", ["--generate", "--models-dir", dir], { env: triggerEnv({ ...GOOGLE_VARIABLES, SPOT: "true", MAX_INSTANCES: "30" }) });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const { model } = loadModelFile(join(dir, "cell-7.yaml"));
    expect(model.cell.id).toBe("cell-7");
    expect(model.gitlab.url).toBe("https://cell-7.gitlab.example.com");
    expect(model.cloud).toEqual({ provider: "google", project: "acme-runners-cell-7", region: "us-east1", zones: ["us-east1-b", "us-east1-c"] });
    expect(model.secrets.store).toBe("google-secret-manager");
    expect(model.shards[0].workers).toMatchObject({ spot: true, max_instances: 30 });
    expect(readFileSync(join(dir, "cell-7.yaml"), "utf8")).toMatch(/^# yaml-language-server: \$schema=\.\/schema\.json/);
    expect(existsSync(join(dir, "schema.json"))).toBe(true);
  });

  it("round-trips an AWS cell from a JSON variables file whose values win over the environment", async () => {
    const varsFile = join(dir, "vars.json");
    writeFileSync(varsFile, JSON.stringify({ CELL_ID: "cell-8", CLOUD: "aws", REGION: "us-west-2", ACCOUNT_ID: "210987654321", ZONES: ["us-west-2a", "us-west-2c"] }));
    const env = triggerEnv({ CELL_ID: "ignored-cell", GITLAB_URL: "https://cell-8.gitlab.example.com" });
    const result = await runInProcess("prepare", ["--generate", "--vars-file", varsFile, "--models-dir", dir, "--json"], { env });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).generated).toMatchObject({ cell: "cell-8", written: true });
    const { model } = loadModelFile(join(dir, "cell-8.yaml"));
    expect(model.cloud).toEqual({ provider: "aws", region: "us-west-2", availability_zones: ["us-west-2a", "us-west-2c"], account_id: "210987654321" });
    expect(model.secrets.store).toBe("aws-ssm");
  });

  it("gives AWS spot workers same-size instance types, so the model starts without that warning", () => {
    const { loaded, text } = generateModel({ CELL_ID: "cell-8", GITLAB_URL: "https://cell-8.gitlab.example.com", CLOUD: "aws", REGION: "us-west-2", SPOT: "true" });
    expect(loaded.model.shards[0].workers.alternative_machine_types).toEqual(["m6i.large", "m7a.large", "m6a.large"]);
    expect(text).toContain("      alternative_machine_types: [m6i.large, m7a.large, m6a.large]\n");
    expect(loaded.warnings.map((warning) => warning.path.join("."))).not.toContain("shards.0.workers.alternative_machine_types");
    // What the generator cannot know stays a warning: whether the jobs retry.
    expect(loaded.warnings.map((warning) => warning.path.join("."))).toContain("shards.0.workers.spot");
  });

  it("fails when variables are missing, naming all of them at once, and writes nothing", async () => {
    const result = await runInProcess("prepare", ["--generate", "--models-dir", dir], { env: triggerEnv({ CLOUD: "google" }) });
    expect(result.status).toBe(2);
    for (const name of ["CELL_ID", "GITLAB_URL", "REGION", "PROJECT"]) expect(result.stderr).toContain(name);
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(existsSync(join(dir, "schema.json"))).toBe(false);
  });

  it("fails when a variable makes the model invalid, naming the variable", () => {
    expect(() => generateModel({ ...GOOGLE_VARIABLES, ZONES: "europe-west4-a" })).toThrow(/variable ZONES: expected a zone of region us-east1/);
    expect(() => generateModel({ ...GOOGLE_VARIABLES, CELL_ID: "Cell 7" })).toThrow(/variable CELL_ID: expected a DNS label/);
    expect(() => generateModel({ ...GOOGLE_VARIABLES, CLOUD: "azure" })).toThrow(UserInputError);
    expect(() => generateModel({ ...GOOGLE_VARIABLES, MAX_INSTANCES: "many" })).toThrow(/MAX_INSTANCES: expected a whole number/);
  });

  it("fails when several variables are bad, naming every one at once in --help's order, the zones' too", async () => {
    const env = triggerEnv({ ...GOOGLE_VARIABLES, CELL_ID: "Cell 7", ZONES: "europe-west4-a", MAX_INSTANCES: "many", SPOT: "yes", RUNNER_VERSION: "v19.6.0" });
    const result = await runInProcess("prepare", ["--generate", "--models-dir", dir], { env });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      [
        "error: the trigger variables do not make a valid model:",
        "  variable CELL_ID: expected a DNS label: lowercase letters, digits and '-', starting with a letter, at most 63 characters, received \"Cell 7\"",
        "  variable ZONES: expected a zone of region us-east1, such as us-east1-a, received \"europe-west4-a\"",
        "  variable RUNNER_VERSION: expected a pinned gitlab-runner version such as \"19.5.0\", received \"v19.6.0\" (did you mean \"19.6.0\"?)",
        "  variable MAX_INSTANCES: expected a whole number, received \"many\"",
        "  variable SPOT: expected true or false, received \"yes\"",
        "",
      ].join("\n"),
    );
    expect(existsSync(join(dir, "cell-7.yaml"))).toBe(false);
  });

  it("fails when one required variable is bad, with that line alone: nothing a stand-in set off", () => {
    expect(() => generateModel({ ...GOOGLE_VARIABLES, CELL_ID: "Cell 7", GITLAB_URL: "gitlab.example.com" })).toThrow(
      new UserInputError(
        "the trigger variables do not make a valid model:\n" +
          "  variable CELL_ID: expected a DNS label: lowercase letters, digits and '-', starting with a letter, at most 63 characters, received \"Cell 7\"\n" +
          "  variable GITLAB_URL: expected an http(s) URL of the GitLab instance, such as https://gitlab.example.com, received \"gitlab.example.com\"",
      ),
    );
  });

  it("keeps an existing model with --if-missing and refuses to overwrite it otherwise", async () => {
    const env = triggerEnv(GOOGLE_VARIABLES);
    expect((await runInProcess("prepare", ["--generate", "--models-dir", dir], { env })).status).toBe(0);
    writeFileSync(join(dir, "cell-7.yaml"), readFileSync(join(dir, "cell-7.yaml"), "utf8").replace("max_instances: 20", "max_instances: 25"));

    const kept = await runInProcess("prepare", ["--generate", "--if-missing", "--models-dir", dir], { env });
    expect(kept.status).toBe(0);
    expect(kept.stdout).toContain("kept existing");
    expect(loadModelFile(join(dir, "cell-7.yaml")).model.shards[0].workers.max_instances).toBe(25);

    const refused = await runInProcess("prepare", ["--generate", "--models-dir", dir], { env });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("already exists");
  });
});
