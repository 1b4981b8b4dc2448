import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadModelFile, parseModel } from "../../lib/model/load";
import { effectivePullPolicy } from "../../lib/model/pull-policy";
import { MODELS_DIR } from "../support/models";

describe("example models", () => {
  it.each(["cell-1.yaml", "cell-2.yaml"])("%s starts with the schema modeline", (name) => {
    expect(readFileSync(join(MODELS_DIR, name), "utf8").split("\n")[0]).toBe("# yaml-language-server: $schema=./schema.json");
  });

  it("cell-1 is a Google Cloud cell with two shards of two managers, defaults applied", () => {
    const { model, warnings } = loadModelFile(join(MODELS_DIR, "cell-1.yaml"));
    expect(warnings).toEqual([]);
    expect(model.cloud.provider).toBe("google");
    expect(model.shards.map((shard) => [shard.name, shard.managers.count])).toEqual([
      ["small-amd64", 2],
      ["large-amd64", 2],
    ]);
    // Defaults the file does not spell out:
    const small = model.shards[0];
    expect(small.access_level).toBe("not_protected");
    expect(small.runner_type).toBe("instance");
    expect(small.paused).toBe(false);
    expect(small.locked).toBe(false);
    expect(small.docker.privileged).toBe(false);
    // Single-use, single-job workers keep the registry fallback; a worker whose cache serves more jobs would not.
    expect(small.docker.pull_policy).toBeUndefined();
    expect(effectivePullPolicy(small)).toEqual(["always", "if-not-present"]);
    expect(small.managers.disk_size_gb).toBe(50);
    expect(small.workers.username).toBe("ubuntu");
    expect(small.cache.shared).toBe(true);
    expect(model.network.public_ips).toBe(false);
    expect(model.gitlab.token_env).toBe("GITLAB_TOKEN");
    expect(model.secrets.local_dir).toBe(".state/secrets");
    expect(model.monitoring.thresholds.concurrency_saturation).toBe(0.9);
    expect(model.monitoring.notifications.channels).toEqual([]);
    expect(model.shards[1].autoscaling.policies[0].scale_factor).toBe(0);
  });

  it("cell-1's large shard mounts /certs/client for Docker-in-Docker, and is privileged as dind needs", () => {
    const { model } = loadModelFile(join(MODELS_DIR, "cell-1.yaml"));
    const large = model.shards[1];
    expect(large.docker.volumes).toContain("/certs/client");
    expect(large.docker.privileged).toBe(true);
    // Privileged jobs never share a Docker host in the examples (prepare refuses it without the opt-in).
    expect(large.workers.capacity_per_instance).toBe(1);
    expect(large.docker.privileged_shares_worker).toBe(false);
  });

  it("warns, at the volume's line:col, when /certs/client is mounted without privileged mode", () => {
    const text = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8").replace(/^      privileged: true\n/m, "");
    const { warnings } = parseModel(text, "cell-1.yaml");
    const line = text.split("\n").findIndex((row) => row.includes('"/certs/client"')) + 1;
    expect(warnings).toEqual([
      expect.objectContaining({ severity: "warning", path: ["shards", 1, "docker", "volumes", 1], line, received: '"/certs/client"' }),
    ]);
    expect(warnings[0].expected).toContain("docker.privileged: true");
  });

  it("cell-2 is an AWS cell with one spot shard, defaults applied", () => {
    const { model } = loadModelFile(join(MODELS_DIR, "cell-2.yaml"));
    expect(model.cloud).toMatchObject({ provider: "aws", region: "eu-west-1" });
    expect(model.shards).toHaveLength(1);
    expect(model.shards[0].workers.spot).toBe(true);
    expect(model.gitlab.token_env).toBe("GITLAB_TOKEN");
    // A NAT gateway per zone, as production should (one NAT is warned about).
    expect(model.network.nat).toBe("per-zone");
    expect(model.state).toMatchObject({ backend: "s3", locking: "s3" });
    expect(model.monitoring.enabled).toBe(true);
    expect(model.shards[0].autoscaling.policies[0].timezone).toBe("UTC");
    expect(model.shards[0].docker.image).toBe("ubuntu:24.04");
    expect(model.shards[0].managers.disk_size_gb).toBe(50);
  });
});
