/**
 * What makes two plans "the same changes" for the apply job (lib/terraform/plan-comparison.ts): the
 * fields that differ between two honest plans are ignored, anything that changes what is applied is not.
 */
import { comparePlans, describePlanDifferences } from "../../lib/terraform/plan-comparison";
import type { PlanJson, PlanResourceChange } from "../../lib/terraform/plan-json";

const resource = (address: string, actions: PlanResourceChange["change"]["actions"], after: unknown, extra: Partial<PlanResourceChange["change"]> = {}): PlanResourceChange => ({
  address,
  mode: "managed",
  type: address.split(".")[0],
  name: address.split(".")[1],
  change: { actions, before: null, after, after_unknown: {}, after_sensitive: {}, ...extra },
});
const plan = (changes: PlanResourceChange[], extra: Partial<PlanJson> = {}): PlanJson => ({ format_version: "1.2", resource_changes: changes, ...extra });
const reviewed = plan([resource("aws_instance.manager", ["create"], { instance_type: "t3.medium", tags: { cell: "cell-1" } })], {
  timestamp: "2026-11-28T10:00:00Z",
  prior_state: { serial: 4 },
});

test("two plans of the same change made at different times from different state serials are the same", () => {
  const own = plan(reviewed.resource_changes!.map((change) => ({ ...change, action_reason: "replace_because_cannot_update" })), {
    timestamp: "2026-11-28T11:00:00Z",
    prior_state: { serial: 5 },
    resource_drift: [resource("aws_s3_bucket.logs", ["update"], {})],
  });
  expect(comparePlans(reviewed, own)).toEqual([]);
});

test("a resource that changes nothing (no-op) in one plan and is absent from the other is no difference", () => {
  expect(comparePlans(reviewed, plan([...reviewed.resource_changes!, resource("aws_vpc.main", ["no-op"], { cidr_block: "10.0.0.0/16" })]))).toEqual([]);
});

test("fails when the reviewed plan has a resource more, naming it and its actions", () => {
  const forged = plan([...reviewed.resource_changes!, resource("aws_iam_role_policy_attachment.extra", ["create"], { policy_arn: "arn:aws:iam::aws:policy/AdministratorAccess" })]);
  expect(comparePlans(forged, reviewed)).toEqual([{ address: "aws_iam_role_policy_attachment.extra", what: "only in the reviewed plan (create)" }]);
});

test("fails when the actions differ (an update reviewed, a replacement applied)", () => {
  const update = plan([resource("aws_instance.manager", ["update"], { instance_type: "t3.large" })]);
  const replace = plan([resource("aws_instance.manager", ["delete", "create"], { instance_type: "t3.large" })]);
  expect(describePlanDifferences(comparePlans(update, replace))).toBe("  aws_instance.manager: actions differ: the reviewed plan update, this checkout's delete, create");
});

test("fails when a value after differs, naming its path but not its value (it may be sensitive)", () => {
  const own = plan([resource("aws_instance.manager", ["create"], { instance_type: "t3.medium", tags: { cell: "cell-9" } })]);
  const differences = comparePlans(reviewed, own);
  expect(differences).toEqual([{ address: "aws_instance.manager", what: "values after differ at tags.cell" }]);
  expect(describePlanDifferences(differences)).not.toContain("cell-9");
});

test("fails when a value known in review is unknown until apply here", () => {
  const own = plan([resource("aws_instance.manager", ["create"], { instance_type: "t3.medium" }, { after_unknown: { tags: true } })]);
  expect(comparePlans(reviewed, own).map((difference) => difference.what)).toEqual(["values after differ at tags"]);
});

test("a data source read is compared by its actions alone (what it reads may move between plans)", () => {
  const read = (id: string): PlanResourceChange => ({ ...resource("aws_ami.ubuntu", ["read"], { id }), mode: "data" });
  expect(comparePlans(plan([read("ami-1")]), plan([read("ami-2")]))).toEqual([]);
});

test("fails when an output change differs", () => {
  const withOutput = (value: string): PlanJson => plan([], { output_changes: { endpoint: { actions: ["create"], before: null, after: value } } });
  expect(comparePlans(withOutput("a"), withOutput("b"))).toEqual([{ address: "output.endpoint", what: "values after differ at (whole value)" }]);
  expect(comparePlans(withOutput("a"), plan([]))).toEqual([{ address: "output.endpoint", what: "only in the reviewed plan (create)" }]);
});
