import { randomBytes } from "node:crypto";
import { ComputeInstanceTemplate } from "@cdktf/provider-google/lib/compute-instance-template";
import { StorageBucket } from "@cdktf/provider-google/lib/storage-bucket";
import { UserInputError } from "../../../lib/process/errors";
import {
  cacheBucketName,
  managerName,
  liveConfigLocation, secretLocation,
  shardLabels,
  workerGroupName,
  zoneOfSlot,
} from "../../../lib/model/names";
import type { RunnerModel } from "../../../lib/model/schema";
import { workerServiceAccountId } from "../../../lib/model/names";
import { renderManagerStartupScript, renderWorkerStartupScript } from "../../../lib/render/manager-files";
import { exampleModel, modelWith } from "../../support/models";
import { googleFleetOf, googleTestStack, resourcesOf, resourceTypes, RUNNER_TOKEN_SHAPE, synth, warningsOf } from "./support";

function fleetOf(model: RunnerModel) {
  const stack = googleTestStack();
  const fleet = googleFleetOf(stack, model);
  return { stack, fleet, json: synth(stack) };
}

function googleCloud(model: RunnerModel) {
  if (model.cloud.provider !== "google") throw new Error("test model must be a Google Cloud model");
  return model.cloud;
}

/** Group resources whose name is one of `names`. */
function groupsNamed(json: string, names: readonly string[]) {
  return resourcesOf(json, "google_compute_instance_group_manager").filter((group) => names.includes(group.name));
}

describe("GoogleCellFleet over models/cell-1.yaml", () => {
  const model = exampleModel("cell-1");
  const cloud = googleCloud(model);
  const { json, fleet } = fleetOf(model);
  const slotsOf = (shard: RunnerModel["shards"][number]) => Array.from({ length: shard.managers.count }, (_, slot) => slot);

  test("creates one manager group and one worker group per manager slot", () => {
    const slotCount = model.shards.reduce((sum, shard) => sum + shard.managers.count, 0);
    expect(slotCount).toBeGreaterThan(0);
    expect(resourcesOf(json, "google_compute_instance_group_manager")).toHaveLength(2 * slotCount);
    expect(resourcesOf(json, "google_compute_instance_template")).toHaveLength(2 * slotCount);
  });

  test("each slot's manager and worker group are named by the naming contract and share a zone", () => {
    for (const shard of model.shards) {
      for (const slot of slotsOf(shard)) {
        const [manager] = groupsNamed(json, [managerName(model, shard, slot)]);
        const [workers] = groupsNamed(json, [workerGroupName(model, shard, slot)]);
        expect(manager).toEqual(expect.objectContaining({ target_size: 1, zone: zoneOfSlot(cloud.zones, slot) }));
        expect(workers).toEqual(expect.objectContaining({ target_size: 0, zone: zoneOfSlot(cloud.zones, slot) }));
      }
    }
  });

  test("workers run as a per-shard account that may only write logs, with the logging.write scope only, so a failed boot leaves its log", () => {
    const accounts = resourcesOf(json, "google_service_account").filter((account) => account.account_id.startsWith("rw-"));
    expect(accounts.map((account) => account.account_id).sort()).toEqual(model.shards.map((shard) => workerServiceAccountId(model, shard)).sort());

    const workerTemplates = resourcesOf(json, "google_compute_instance_template").filter((template) => template.labels["runner-role"] === "worker");
    expect(workerTemplates.length).toBeGreaterThan(0);
    for (const template of workerTemplates) {
      expect(template.service_account.scopes).toEqual(["https://www.googleapis.com/auth/logging.write"]);
      expect(template.service_account.email).toMatch(/^\$\{google_service_account\..*worker-logs.*\.email\}$/);
    }
    const rolesOfWorkers = resourcesOf(json, "google_project_iam_member").filter((member) => String(member.member).includes("worker-logs"));
    expect(rolesOfWorkers.map((member) => member.role)).toEqual(model.shards.map(() => "roles/logging.logWriter"));
    // The managers set the workers' metadata, which needs serviceAccountUser on the workers' account.
    const actAs = resourcesOf(json, "google_service_account_iam_member").filter((member) => member.role === "roles/iam.serviceAccountUser");
    expect(actAs).toHaveLength(model.shards.length);
  });

  test("worker groups are never shared: every name is distinct and differs from every manager group", () => {
    const names = resourcesOf(json, "google_compute_instance_group_manager").map((group) => group.name);
    expect(new Set(names).size).toBe(names.length);
    fleet.shards.forEach((shardFleet, index) => {
      expect(shardFleet.name).toBe(model.shards[index].name);
      expect(shardFleet.workers.groupNames).toHaveLength(model.shards[index].managers.count);
    });
  });

  test("each shard lives in its own construct scope", () => {
    expect(fleet.shards.map((shardFleet) => shardFleet.scope.node.id)).toEqual(model.shards.map((shard) => `shard-${shard.name}`));
  });

  test("managers boot the rendered per-slot startup script; workers the shard's worker script", () => {
    const shard = model.shards[0];
    for (const slot of slotsOf(shard)) {
      expect(json).toHaveResourceWithProperties(ComputeInstanceTemplate, {
        metadata: expect.objectContaining({ "startup-script": renderManagerStartupScript(model, shard, slot), "enable-oslogin": "TRUE" }),
      });
    }
    expect(json).toHaveResourceWithProperties(ComputeInstanceTemplate, {
      metadata: expect.objectContaining({ "startup-script": renderWorkerStartupScript(model, shard), "enable-oslogin": "FALSE" }),
    });
  });

  test("templates carry the shard's labels", () => {
    const shard = model.shards[1];
    expect(json).toHaveResourceWithProperties(ComputeInstanceTemplate, {
      labels: { ...shardLabels(model, shard), "runner-role": "worker" },
    });
  });

  test("no VM has an external IP and every VM is a Shielded VM", () => {
    for (const template of resourcesOf(json, "google_compute_instance_template")) {
      expect(template.network_interface[0].access_config).toBeUndefined();
      expect(template.shielded_instance_config.enable_secure_boot).toBe(true);
    }
  });

  test("no autoscaler resource anywhere", () => {
    expect(resourceTypes(json).filter((type) => type.includes("autoscaler"))).toEqual([]);
  });

  test("managers may read only their own shard's token secret, and each slot's config.toml secret", () => {
    const grants = resourcesOf(json, "google_secret_manager_secret_iam_member");
    const tokenGrants = grants.filter((grant) => !String(grant.secret_id).includes("live-config"));
    expect(tokenGrants.map((grant) => grant.secret_id).sort()).toEqual(
      model.shards.map((shard) => secretLocation(model, shard).googleSecretId).sort(),
    );
    // One config secret per slot, readable by that shard's managers only.
    const secrets = resourcesOf(json, "google_secret_manager_secret").filter((secret) => String(secret.secret_id).includes("-config-"));
    expect(secrets.map((secret) => secret.secret_id).sort()).toEqual(
      model.shards.flatMap((shard) => Array.from({ length: shard.managers.count }, (_, slot) => liveConfigLocation(model, shard, slot).googleSecretId)).sort(),
    );
    for (const grant of grants.filter((candidate) => String(candidate.secret_id).includes("live-config"))) {
      const shard = /shard-([a-z0-9-]+)_live-config/.exec(grant.secret_id)![1];
      expect(grant.member).toContain(`shard-${shard}_iam_ServiceAccount`);
    }
    fleet.shards.forEach((shardFleet, index) => {
      expect(shardFleet.iam.tokenSecretId).toBe(secretLocation(model, model.shards[index]).googleSecretId);
    });
  });

  test("each shard with a cache gets its bucket with the model's expiry", () => {
    for (const shard of model.shards) {
      expect(json).toHaveResourceWithProperties(StorageBucket, {
        name: cacheBucketName(model, shard),
        lifecycle_rule: [{ action: { type: "Delete" }, condition: { age: shard.cache.expiry_days } }],
      });
    }
  });

  test("alert policies and thresholds come from the model", () => {
    const policies = resourcesOf(json, "google_monitoring_alert_policy");
    // Six per shard, and the cell-wide Cloud NAT drop alert.
    expect(policies).toHaveLength(6 * model.shards.length + 1);
    expect(fleet.monitoring?.jobFailureRatio).toBe(model.monitoring.thresholds.job_failure_ratio);
    const failureQueries = fleet.monitoring!.alerts.filter((alert) => alert.kind === "job-failure-ratio").map((alert) => alert.query);
    for (const query of failureQueries) expect(query).toContain(`>= ${model.monitoring.thresholds.job_failure_ratio} and `);
  });

  test("notification channels come from the model", () => {
    const channels = resourcesOf(json, "google_monitoring_notification_channel");
    expect(channels.filter((c) => c.type === "email").map((c) => c.labels.email_address)).toEqual(model.monitoring.notifications.emails);
    expect(channels.filter((c) => c.type === "webhook_tokenauth").map((c) => c.labels.url)).toEqual(model.monitoring.notifications.webhooks);
  });

  test("outputs name the groups, buckets and service accounts per shard", () => {
    const outputs = JSON.parse(json).output;
    const shard = model.shards[0];
    expect(outputs.manager_group_names.value[shard.name]).toEqual(slotsOf(shard).map((slot) => managerName(model, shard, slot)));
    expect(outputs.worker_group_names.value[shard.name]).toEqual(slotsOf(shard).map((slot) => workerGroupName(model, shard, slot)));
    expect(outputs.cache_bucket_names.value[shard.name]).toBe(cacheBucketName(model, shard));
    expect(outputs.manager_service_account_emails.value[shard.name]).toMatch(/^\$\{google_service_account\..+\.email\}$/);
  });
});

describe("GoogleCellFleet variations", () => {
  test("the synthesized JSON contains no token-shaped string, even with a token in the environment", () => {
    const model = exampleModel("cell-1");
    const fakeToken = `glrt-${randomBytes(18).toString("base64url")}`;
    const previous = process.env[model.gitlab.token_env];
    process.env[model.gitlab.token_env] = fakeToken;
    try {
      const { json } = fleetOf(model);
      expect(json).not.toContain(fakeToken);
      expect(json).not.toMatch(RUNNER_TOKEN_SHAPE);
    } finally {
      if (previous === undefined) delete process.env[model.gitlab.token_env];
      else process.env[model.gitlab.token_env] = previous;
    }
  });

  test("spot workers only for the shard that asks for them", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[0].workers.spot = true;
    });
    const { json } = fleetOf(model);
    const workerTemplates = resourcesOf(json, "google_compute_instance_template").filter((t) => t.labels["runner-role"] === "worker");
    const modelOf = (shardName: string) =>
      workerTemplates.filter((t) => t.labels["runner-shard"] === shardName).map((t) => t.scheduling.provisioning_model);
    expect(modelOf(model.shards[0].name)).toEqual(Array(model.shards[0].managers.count).fill("SPOT"));
    expect(modelOf(model.shards[1].name)).toEqual(Array(model.shards[1].managers.count).fill("STANDARD"));
  });

  test("with the local secrets store: no secret access, no autohealing, and a warning", () => {
    const model = modelWith("cell-1", (m) => {
      m.secrets.store = "local";
    });
    const { json, stack } = fleetOf(model);
    // Only the config.toml secrets, which the managers read whatever the token's store.
    expect(resourcesOf(json, "google_secret_manager_secret_iam_member").filter((grant) => !String(grant.secret_id).includes("live-config"))).toHaveLength(0);
    expect(resourcesOf(json, "google_compute_health_check")).toHaveLength(0);
    expect(warningsOf(stack).join("\n")).toMatch(/No token secret/);
  });

  test("no bucket for a shard whose cache is disabled", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].cache.enabled = false;
    });
    const { json, fleet } = fleetOf(model);
    expect(resourcesOf(json, "google_storage_bucket").map((bucket) => bucket.name)).toEqual([cacheBucketName(model, model.shards[0])]);
    expect(fleet.shards[1].cache).toBeUndefined();
  });

  test("no monitoring resources when monitoring is disabled", () => {
    const model = modelWith("cell-1", (m) => {
      m.monitoring.enabled = false;
    });
    const { json } = fleetOf(model);
    expect(resourceTypes(json).filter((type) => type.startsWith("google_monitoring_"))).toEqual([]);
  });

  test("public_ips gives managers an external IP, never workers", () => {
    const model = modelWith("cell-1", (m) => {
      m.network.public_ips = true;
    });
    const { json } = fleetOf(model);
    for (const template of resourcesOf(json, "google_compute_instance_template")) {
      const hasExternalIp = template.network_interface[0].access_config !== undefined;
      expect(hasExternalIp).toBe(template.labels["runner-role"] === "manager");
    }
  });

  test("an existing network is used by name, with firewall rules but no network of its own", () => {
    const model = modelWith("cell-1", (m) => {
      m.network.cidr = undefined;
      m.network.existing = { network: "shared-vpc", subnets: ["runners-europe-west4"] };
    });
    const { json } = fleetOf(model);
    expect(resourcesOf(json, "google_compute_network")).toHaveLength(0);
    for (const template of resourcesOf(json, "google_compute_instance_template")) {
      expect(template.network_interface[0].subnetwork).toBe("runners-europe-west4");
    }
    expect(resourcesOf(json, "google_compute_firewall").every((rule) => rule.network === "shared-vpc")).toBe(true);
  });

  test("fails when a shard has no manager slot", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[0].managers.count = 0;
    });
    expect(() => fleetOf(model)).toThrow(UserInputError);
    expect(() => fleetOf(model)).toThrow("test/fleet/shard-small-amd64/iam: workerGroups is []; expected at least one worker group.");
  });

  test("fails when two shards share a name: the name keys the outputs and the shard's construct scope", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].name = m.shards[0].name;
    });
    expect(() => fleetOf(model)).toThrow(UserInputError);
    expect(() => fleetOf(model)).toThrow(/test\/fleet: shards\[\]\.name is .*"small-amd64" appears more than once/);
  });

  test("fails when a monitoring range is 0.0.0.0/0", () => {
    const model = modelWith("cell-1", (m) => {
      m.network.monitoring_cidrs = ["0.0.0.0/0"];
    });
    expect(() => fleetOf(model)).toThrow(/monitoringSourceRanges\[0\] is "0\.0\.0\.0\/0"/);
  });
});
