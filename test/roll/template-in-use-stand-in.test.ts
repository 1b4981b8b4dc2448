/**
 * The stand-in terraform's Google rule the roll is tested against (test/support/fake-terraform.js): an
 * apply that would delete an instance template a VM still runs from fails as the Compute API refuses it
 * (`resourceInUseByAnotherResource`; hashicorp/terraform-provider-google#6277, hashicorp/terraform#21865),
 * which is what a wave did before it kept the slot's previous template; a `moved` block that takes the old
 * template aside lets the new one be made while the old one stays, until its VM runs the new one.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FAKE = join(__dirname, "..", "support", "fake-terraform.js");
const TEMPLATE = "google_compute_instance_template.slot0";
const PREVIOUS = "google_compute_instance_template.slot0_previous";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "template-in-use-"));
  mkdirSync(join(dir, ".terraform"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function stack(startup: string, extra: { previous?: boolean; moved?: boolean } = {}): void {
  const template = (lifecycle: object) => ({ name_prefix: "mgr-", metadata: { "startup-script": startup }, lifecycle });
  writeFileSync(
    join(dir, "cdk.tf.json"),
    JSON.stringify({
      resource: {
        google_compute_instance_template: {
          slot0: template({ create_before_destroy: true }),
          ...(extra.previous ? { slot0_previous: template({ create_before_destroy: true, ignore_changes: "all" }) } : {}),
        },
      },
      ...(extra.moved ? { moved: [{ from: TEMPLATE, to: PREVIOUS }] } : {}),
    }),
  );
}

/** plan -out then apply of that plan; the stand-in's exit status and stderr. */
function planAndApply(): { status: number; stderr: string } {
  const env = { ...process.env, FAKE_TF_STATE: join(dir, "state.json"), FAKE_GCE_IN_USE: join(dir, "vms.json") };
  execFileSync(process.execPath, [FAKE, "plan", "-out=p.tfplan"], { cwd: dir, env });
  try {
    execFileSync(process.execPath, [FAKE, "apply", "p.tfplan"], { cwd: dir, env, stdio: "pipe" });
    return { status: 0, stderr: "" };
  } catch (error) {
    const failed = error as { status: number; stderr: Buffer };
    return { status: failed.status, stderr: failed.stderr.toString() };
  }
}

const ids = (): Record<string, string> => JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).ids;
const runFrom = (templateId: string) => writeFileSync(join(dir, "vms.json"), JSON.stringify({ "manager-slot0-abcd": templateId }));

test("fails when an apply replaces the template the slot's VM still runs from, as the Compute API refuses it", () => {
  stack("v1");
  expect(planAndApply().status).toBe(0);
  runFrom(ids()[TEMPLATE]);
  stack("v2");

  const result = planAndApply();

  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(/Error 400: The instance_template resource '.*' is already being used by '.*\/instances\/manager-slot0-abcd', resourceInUseByAnotherResource/);
  // Nothing changed: the VM's template is still the current one.
  expect(ids()[TEMPLATE]).toBe(JSON.parse(readFileSync(join(dir, "vms.json"), "utf8"))["manager-slot0-abcd"]);
});

test("a template moved aside stays while its VM runs from it, and goes once the VM runs the new one", () => {
  stack("v1");
  planAndApply();
  const first = ids()[TEMPLATE];
  runFrom(first);

  stack("v2", { previous: true, moved: true });
  expect(planAndApply().status).toBe(0);
  expect(ids()[PREVIOUS]).toBe(first);
  expect(ids()[TEMPLATE]).not.toBe(first);

  // Declared no more while the VM still drains: refused.
  stack("v2");
  expect(planAndApply().stderr).toContain("resourceInUseByAnotherResource");

  // The group recreated the VM from the new template: the old one goes.
  runFrom(ids()[TEMPLATE]);
  expect(planAndApply().status).toBe(0);
  expect(Object.keys(ids())).toEqual([TEMPLATE]);
});
