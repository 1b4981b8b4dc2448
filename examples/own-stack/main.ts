/**
 * A CDKTF app of a platform team's own, with a runner fleet in its stack beside the team's other
 * resources: runner-fleet as a library (no CLI). The fleet is the one `runner-fleet provision` would
 * build for the model; the stack, its provider and its backend are the team's.
 *
 *   npm install runner-fleet cdktf constructs @cdktf/provider-google   (the versions runner-fleet pins)
 *   npx tsc && node main.js models/cell-1.yaml                          (or `cdktf synth` with "app": "node main.js")
 *
 * Tokens and secrets: the fleet's VMs read their runner token from the model's secret store at boot;
 * `runner-fleet onboard --model cell-1` creates the runners and stores their tokens (before the first apply).
 */
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import { StorageBucket } from "@cdktf/provider-google/lib/storage-bucket";
import { App, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { addCellFleet, loadModelFile, shardLabels } from "runner-fleet";

class PlatformStack extends TerraformStack {
  constructor(scope: Construct, id: string, modelFile: string) {
    super(scope, id);
    // Checked as the CLI checks it: a mistake stops here with file, line and what was expected.
    const { model } = loadModelFile(modelFile);
    if (model.cloud.provider !== "google") throw new Error(`${modelFile}: this stack is on Google Cloud`);

    const google = new GoogleProvider(this, "google", { project: model.cloud.project, region: model.cloud.region });
    google.addOverride("default_labels", shardLabels(model)); // the labels every runner-fleet resource carries
    new StorageBucket(this, "build-artifacts", { name: `${model.cloud.project}-artifacts`, location: "EU", uniformBucketLevelAccess: true });

    addCellFleet(this, "runners", model); // the cell's whole fleet: network, managers, workers, IAM, cache, alerts
  }
}

const app = new App({ outdir: process.argv[3] ?? "cdktf.out" });
new PlatformStack(app, "platform", process.argv[2] ?? "models/cell-1.yaml");
app.synth();
