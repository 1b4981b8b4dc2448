/** Moved to lib/ci/gitlab-ci/pipeline.ts (the `pipeline` command uses it too); kept here for tests that import it from test/support. */
export * from "../../lib/ci/gitlab-ci/pipeline";
