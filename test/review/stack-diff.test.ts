import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StackJson } from "../../lib/review/entry-change";
import { diffCell, diffStacks } from "../../lib/review/stack-diff";

const FIXTURES = join(__dirname, "..", "fixtures", "stack-diff");

function loadStacks(name: string): Map<string, StackJson> {
  return new Map(Object.entries(JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as Record<string, StackJson>));
}

function sha12(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

/** A runner-token-shaped string made at run time (never committed). */
function fakeRunnerToken(): string {
  return `glrt-t1_${randomBytes(16).toString("hex")}`;
}

describe("diffStacks on fixtures", () => {
  const before = loadStacks("before.json");
  const after = loadStacks("after.json");
  const diff = diffStacks(before, after);
  const cellA = diff.cells.find((cell) => cell.cell === "cell-a")!;

  it("sorts cells into added, removed, changed and unchanged", () => {
    expect(diff.summary).toEqual({ added: ["cell-d"], removed: ["cell-c"], changed: ["cell-a"], unchanged: ["cell-b"] });
  });

  it("lists added, removed and changed resources by address", () => {
    expect(cellA.resources.map((change) => [change.action, change.address])).toEqual([
      ["update", "google_compute_instance_template.manager"],
      ["create", "google_storage_bucket.cache"],
      ["delete", "google_storage_bucket.old-cache"],
    ]);
    expect(cellA.unchangedResources).toBe(1);
  });

  it("keeps data sources apart: they are read, not managed, and not counted as resources", () => {
    expect(cellA.dataSources.map((change) => [change.action, change.address])).toEqual([["create", "data.google_project.current"]]);
    expect(cellA.resources.some((change) => change.address.startsWith("data."))).toBe(false);
  });

  it("names the attribute paths that differ in a changed resource", () => {
    const manager = cellA.resources.find((change) => change.address === "google_compute_instance_template.manager")!;
    expect(manager.attributes.map((attribute) => [attribute.kind, attribute.path])).toEqual([
      ["removed", "description"],
      ["added", "labels.team"],
      ["changed", "machine_type"],
      ["changed", "metadata.startup-script"],
    ]);
    expect(manager.attributes.find((attribute) => attribute.path === "machine_type")).toMatchObject({ before: '"e2-small"', after: '"e2-medium"' });
    expect(manager.constructPath).toBe("cell-a/manager/Resource");
  });

  it("ignores cdktf metadata and the local backend's absolute path", () => {
    const network = cellA.resources.find((change) => change.address === "google_compute_network.network");
    expect(network).toBeUndefined();
    expect(cellA.settings).toEqual([]);
    expect(diff.cells.find((cell) => cell.cell === "cell-b")!.status).toBe("unchanged");
  });

  it("reports outputs and providers", () => {
    expect(cellA.outputs.map((change) => [change.action, change.address])).toEqual([
      ["create", "output.cache_bucket"],
      ["update", "output.network_name"],
    ]);
    expect(cellA.providers).toEqual([
      { address: "provider.google", action: "update", attributes: [{ path: "region", kind: "changed", before: '"europe-west4"', after: '"europe-west1"' }] },
    ]);
  });

  it("shows a startup script only as a short hash before and after, never its content", () => {
    const script = (stacks: Map<string, StackJson>) =>
      ((stacks.get("cell-a")!.resource as any).google_compute_instance_template.manager.metadata["startup-script"] as string);
    const change = cellA.resources
      .find((entry) => entry.address === "google_compute_instance_template.manager")!
      .attributes.find((attribute) => attribute.path === "metadata.startup-script")!;

    expect(change.before).toBe(`sha256:${sha12(script(before))} (${script(before).length} chars)`);
    expect(change.after).toBe(`sha256:${sha12(script(after))} (${script(after).length} chars)`);
    expect(JSON.stringify(diff)).not.toContain("gitlab-runner 18.");
  });

  it("shows base64 user data by hash only", () => {
    const userData = "IyEvYmluL2Jhc2gKZWNobyAid29ya2VyIGJvb3RzdHJhcCB2ZXJzaW9uIDIiCg==";
    const old = structuredClone(before.get("cell-b")!) as any;
    const changed = structuredClone(old);
    changed.resource.aws_launch_template.workers.user_data = userData;

    const cell = diffCell("cell-b", old, changed);

    expect(cell.resources[0].attributes).toEqual([
      {
        path: "user_data",
        kind: "changed",
        before: `sha256:${sha12(old.resource.aws_launch_template.workers.user_data)} (64 chars)`,
        after: `sha256:${sha12(userData)} (64 chars)`,
      },
    ]);
  });

  it("redacts token-shaped values it shows", () => {
    const token = fakeRunnerToken();
    const old = structuredClone(before.get("cell-a")!) as any;
    const changed = structuredClone(old);
    changed.resource.google_compute_instance_template.manager.description = token;
    changed.resource.google_compute_instance_template.manager.labels[token] = "x";

    const cell = diffCell("cell-a", old, changed);

    const text = JSON.stringify(cell);
    expect(text).not.toContain(token);
    expect(text).toContain("glrt-t1…****");
  });

  it("leaves an added cell's resources as creates and a removed cell's as deletes", () => {
    expect(diff.cells.find((cell) => cell.cell === "cell-d")!.resources).toEqual([
      { address: "google_compute_network.network", action: "create", attributes: [] },
    ]);
    expect(diff.cells.find((cell) => cell.cell === "cell-c")!.resources).toEqual([
      { address: "google_compute_network.network", action: "delete", attributes: [] },
    ]);
  });

  it("shows ordinary attributes whose names merely contain a script-like word", () => {
    const manager = cellA.resources.find((change) => change.address === "google_compute_instance_template.manager")!;
    expect(manager.attributes.find((attribute) => attribute.path === "description")).toEqual({
      path: "description",
      kind: "removed",
      before: '"runner managers"',
    });
  });

  it("diffs a JSON policy document inside a string by its structure", () => {
    const policy = (actions: string[]) =>
      JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: actions, Resource: "arn:aws:autoscaling:eu-west-1:1:autoScalingGroup:*" }] });
    const stack = (actions: string[]) => ({ resource: { aws_iam_policy: { manager: { policy: policy(actions) } } } });

    const cell = diffCell("cell-b", stack(["autoscaling:SetDesiredCapacity"]), stack(["autoscaling:SetDesiredCapacity", "ec2:DescribeInstances"]));

    expect(cell.resources[0].attributes).toEqual([{ path: "policy.Statement[0].Action[1]", kind: "added", after: '"ec2:DescribeInstances"' }]);
  });

  it("diffs AWS tag blocks by their key: one label more is one added tag, not every later block shifted", () => {
    const tag = (key: string, value: string) => ({ key, value, propagate_at_launch: true });
    const group = (tags: ReturnType<typeof tag>[]) => ({ resource: { aws_autoscaling_group: { workers: { tag: tags } } } });
    const before = group([tag("cell", "cell-2"), tag("team", "runner-platform"), tag("zone", "a")]);
    const after = group([tag("cell", "cell-2"), tag("environment", "production"), tag("team", "ci"), tag("zone", "a")]);

    const cell = diffCell("cell-2", before, after);

    expect(cell.resources[0].attributes).toEqual([
      { path: 'tag[key="environment"].key', kind: "added", after: '"environment"' },
      { path: 'tag[key="environment"].value', kind: "added", after: '"production"' },
      { path: 'tag[key="environment"].propagate_at_launch', kind: "added", after: "true" },
      { path: 'tag[key="team"].value', kind: "changed", before: '"runner-platform"', after: '"ci"' },
    ]);
  });

  it("shows a Terraform reference as the reference, however long, never as a hash", () => {
    const reference = "${aws_launch_template.fleet_shard-spot-amd64_manager-0_launch-template_0A1B2C3D.id}";
    expect(reference.length).toBeGreaterThan(80);
    const group = (launchTemplate: Record<string, string>) => ({ resource: { aws_autoscaling_group: { manager: { launch_template: launchTemplate } } } });

    const cell = diffCell("cell-2", group({ id: reference, version: "$Latest" }), group({ version: "$Latest" }));

    expect(cell.resources[0].attributes).toEqual([{ path: "launch_template.id", kind: "removed", before: JSON.stringify(reference) }]);
  });

  it("reports a changed backend other than the local path", () => {
    const old = { terraform: { backend: { local: { path: "/a/x.tfstate" } } } };
    const changed = { terraform: { backend: { gcs: { bucket: "state", prefix: "cell-a" } } } };

    const cell = diffCell("cell-a", old, changed);

    expect(cell.settings).toEqual([
      {
        address: "terraform",
        action: "update",
        attributes: [
          { path: "backend.gcs.bucket", kind: "added", after: '"state"' },
          { path: "backend.gcs.prefix", kind: "added", after: '"cell-a"' },
          { path: "backend.local", kind: "removed", before: "{}" },
        ],
      },
    ]);
  });
});
