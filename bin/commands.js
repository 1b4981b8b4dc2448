"use strict";
/**
 * The commands of `runner-fleet <command>` (bin/runner-fleet.js), in the order its help lists them:
 * each is the bundle dist/bundle/<name>.js that ./bin/<name> runs (build/bundle-commands.js builds one
 * per bin/<name>), the factory that bundle exports, and one line of help. A new command is one line here.
 */
module.exports = {
  init: { factory: "initCommand", summary: "write a models repository here: a model, its schema, a pipeline, package.json, a README" },
  prepare: { factory: "prepareCommand", summary: "validate the models, check the toolchain, write models/schema.json" },
  onboard: { factory: "onboardCommand", summary: "create or reconcile a cell's runners in GitLab and store their tokens" },
  provision: { factory: "provisionCommand", summary: "synthesize a cell's stack, plan, onboard and apply (--dry-run: no credentials)" },
  pipeline: { factory: "pipelineCommand", summary: "the jobs this repository's .gitlab-ci.yml makes for a merge request, the default branch and a schedule" },
  review: { factory: "reviewCommand", summary: "compare the synthesized stacks of two git refs (merge request review)" },
  gate: { factory: "gateCommand", summary: "judge one wave of a rollout against its baseline; --promote records a person's promotion" },
  status: { factory: "statusCommand", summary: "the whole fleet as GitLab sees it, and the version that provisioned each cell" },
  simulate: { factory: "simulateCommand", summary: "replay a job load against a model's autoscaling: queue wait, instance-hours and cost per shard" },
  prices: { factory: "pricesCommand", summary: "read the prices the cost estimates lack from the clouds' price APIs; --write records them, dated, in the models" },
  import: { factory: "importCommand", summary: "write a cell's model from existing runner managers' config.toml files; --adopt keeps their runners" },
};
