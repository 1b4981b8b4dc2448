/**
 * The apply runs only what was reviewed, with the real terraform: a merge request's job (whose code
 * its author controls) saves a plan of the clean stack plus one resource, and ships it with the
 * clean stack's inputs digest. The apply job plans again from its own checkout and compares
 * (app/provision/reviewed-plan.ts, as plan-cell.ts calls it): the forged plan is refused, naming the
 * extra resource, and the state is untouched; an honest plan of the same change (made at another
 * time, so its timestamp differs) lets the job apply its own plan.
 *
 * Provider-free: `terraform_data` is built into terraform (since 1.4), so nothing is downloaded.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkAgainstReviewedPlan, ReviewedPlanDiffers } from "../../app/provision/reviewed-plan";
import { EngineDriver } from "../../lib/terraform/engine";
import { planInputsDigest, writePlanInputs } from "../../lib/terraform/plan-inputs";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { ENGINE_PROCESS_SETTINGS, isolatedEnv, terraform, terraformBinary } from "../support/real-engine/terraform-cli";

describeWithRealEngine("the apply job and a reviewed plan, with the real terraform", { aws: false }, (engine) => {
  let root: string;
  let stateFile: string;
  const env = isolatedEnv();
  const version = { name: "terraform" as const, version: engine.terraformVersion };

  /** A stack as cdktf writes it (cdk.tf.json), its state in one local file shared by every directory. */
  const writeStack = (dir: string, resources: Record<string, string>) => {
    mkdirSync(dir, { recursive: true });
    const stack = {
      terraform: { backend: { local: { path: stateFile } } },
      resource: { terraform_data: Object.fromEntries(Object.entries(resources).map(([name, input]) => [name, { input }])) },
    };
    writeFileSync(join(dir, "cdk.tf.json"), `${JSON.stringify(stack, null, 2)}\n`);
  };
  const driverIn = (dir: string) => new EngineDriver({ engine: "terraform", executable: terraformBinary(), cwd: dir, env, addEnv: ENGINE_PROCESS_SETTINGS, color: false });
  const stateList = async (dir: string) => (await terraform(["state", "list"], dir, env)).stdout.trim().split("\n").sort();

  /** The merge request's job: plans `dir` and keeps the plan with an inputs record claiming `claimedDigest`. */
  const mergeRequestPlan = async (dir: string, claimedDigest: string) => {
    const driver = driverIn(dir);
    await driver.init();
    const planned = await driver.plan({ out: join(dir, "cell-1.tfplan") });
    writePlanInputs(planned.planFile, { cell: "cell-1", digest: claimedDigest, engine: "terraform", engineVersion: engine.terraformVersion });
    return planned.planFile;
  };

  let checkout: string;
  let forged: string;
  let honest: string;
  let stateBefore: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "runner-fleet-reviewed-plan-"));
    stateFile = join(root, "cell-1.tfstate");
    checkout = join(root, "checkout");
    // What is applied today, then the change under review: the runner's input changes.
    writeStack(checkout, { runner: "v1" });
    await terraform(["init", "-input=false", "-no-color"], checkout, env);
    await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], checkout, env);
    writeStack(checkout, { runner: "v2" });
    const cleanDigest = planInputsDigest(checkout, version);

    // The forged plan: the clean change plus one resource, with the clean stack's digest.
    const attacker = join(root, "attacker");
    writeStack(attacker, { runner: "v2", iam_binding: "roles/owner for attacker@example.com" });
    forged = await mergeRequestPlan(attacker, cleanDigest);
    // An honest plan of the clean change, made in a copy of the checkout as the merge request's job would.
    const reviewer = join(root, "reviewer");
    mkdirSync(reviewer);
    cpSync(join(checkout, "cdk.tf.json"), join(reviewer, "cdk.tf.json"));
    honest = await mergeRequestPlan(reviewer, cleanDigest);
    // The apply job plans later, as it does in a pipeline: a plan records its time to the second, so the job's
    // own plan is a file of its own, never the reviewed one's bytes, however fast this machine plans.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    stateBefore = readFileSync(stateFile, "utf8");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** What the apply job does (plan-cell.ts): init, its own plan, show it, compare with the reviewed one. */
  const applyJobPlan = async (reviewedFile: string) => {
    const driver = driverIn(checkout);
    await driver.init();
    const own = await driver.plan({ out: join(checkout, "cell-1.tfplan") });
    const ownPlan = await driver.showPlanJson(own.planFile);
    const use = await checkAgainstReviewedPlan({ file: reviewedFile, whenMissing: "refuse" }, ownPlan, { cell: "cell-1", driver, digest: planInputsDigest(checkout, version) });
    return { driver, own, use };
  };

  it("fails on a reviewed plan with one resource more, shipped with the clean digest: it names the resource, and the state is unchanged", async () => {
    const refusal = await applyJobPlan(forged).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ReviewedPlanDiffers);
    const message = (refusal as Error).message;
    expect(message).toContain("this checkout's plan differs from the reviewed plan");
    expect(message).toContain("terraform_data.iam_binding: only in the reviewed plan (create)");
    expect(message).toContain("nothing was applied");
    // The shared change itself matched: only the extra resource is named.
    expect(message).not.toContain("terraform_data.runner");
    expect(readFileSync(stateFile, "utf8")).toBe(stateBefore);
    expect(await stateList(checkout)).toEqual(["terraform_data.runner"]);
  });

  it("applies its own plan when the reviewed plan makes the same changes (made at another time, its timestamp differs)", async () => {
    const { driver, own, use } = await applyJobPlan(honest);
    expect(use).toEqual({ matched: true });
    // The two plans are not the same file: the comparison is of what they do.
    expect(readFileSync(own.planFile)).not.toEqual(readFileSync(honest));
    await driver.apply(own.planFile);
    const state = JSON.parse(readFileSync(stateFile, "utf8"));
    const runner = state.resources.find((resource: { name: string }) => resource.name === "runner");
    expect(runner.instances[0].attributes.input).toEqual({ type: "string", value: "v2" });
  });
});
