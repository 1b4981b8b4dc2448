/**
 * The rules evaluator (lib/ci/gitlab-ci/expression.ts, pipeline.ts) against the examples
 * GitLab documents, so the pipeline tests that rely on it rest on GitLab's semantics, not ours.
 * Sources: doc/ci/jobs/job_rules.md ("CI/CD variable expressions", "rules examples"),
 * doc/ci/yaml/index.md (rules:if, rules:when), doc/ci/pipelines/downstream_pipelines.md
 * ("Run child pipelines with merge request pipelines").
 */
import { evaluateExpression, ExpressionSyntaxError, parseExpression } from "../../lib/ci/gitlab-ci/expression";
import { evaluatePipeline, jobNames } from "../../lib/ci/gitlab-ci/pipeline";

describe("CI/CD variable expressions", () => {
  it.each([
    // Compare a variable to a string: both quote styles.
    ['$VARIABLE == "some value"', { VARIABLE: "some value" }, true],
    ["$VARIABLE == 'some value'", { VARIABLE: "some value" }, true],
    ['$VARIABLE != "some value"', { VARIABLE: "some value" }, false],
    ['$VARIABLE != "some value"', {}, true],
    // Compare two variables.
    ["$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH", { CI_COMMIT_BRANCH: "main", CI_DEFAULT_BRANCH: "main" }, true],
    ["$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH", { CI_DEFAULT_BRANCH: "main" }, false],
    ["$VARIABLE_1 != $VARIABLE_2", { VARIABLE_1: "a", VARIABLE_2: "b" }, true],
    // null: defined or not.
    ["$VARIABLE == null", {}, true],
    ["$VARIABLE == null", { VARIABLE: "" }, false],
    ["$VARIABLE != null", { VARIABLE: "" }, true],
    // Defined but empty.
    ['$VARIABLE == ""', { VARIABLE: "" }, true],
    ['$VARIABLE == ""', {}, false],
    // Bare variable: defined and not empty.
    ["$VARIABLE", { VARIABLE: "x" }, true],
    ["$VARIABLE", { VARIABLE: "" }, false],
    ["$VARIABLE", {}, false],
    // Regular expressions.
    ["$VARIABLE =~ /^content.*/", { VARIABLE: "content-1" }, true],
    ["$VARIABLE =~ /^content.*/", { VARIABLE: "other" }, false],
    ["$VARIABLE !~ /^content.*/", { VARIABLE: "other" }, true],
    ["$VARIABLE =~ /^CONTENT/i", { VARIABLE: "content" }, true],
    ["$VARIABLE =~ /^CONTENT/", { VARIABLE: "content" }, false],
    ["$CI_COMMIT_BRANCH =~ /issue/", { CI_COMMIT_BRANCH: "severe-issues" }, true],
    ["$CI_COMMIT_BRANCH =~ /^issue-.*$/", { CI_COMMIT_BRANCH: "severe-issues" }, false],
    ["$CI_COMMIT_BRANCH =~ /^release\\/v1/", { CI_COMMIT_BRANCH: "release/v1.2" }, true],
    // A regex stored in a variable (right side), GitLab >= 15.1.
    ["$teststring =~ $pattern", { teststring: "abcde", pattern: "/^ab.*/" }, true],
    ["$teststring =~ $pattern", { teststring: "fghij", pattern: "/^ab.*/" }, false],
    // A right side that is no regex is a substring test (docs troubleshooting: "23" =~ "1234" is true).
    ["$LEFT =~ $RIGHT", { LEFT: "23", RIGHT: "1234" }, true],
    ["$LEFT =~ /1234/", { LEFT: "23" }, false],
    // An unset right side never matches.
    ["$LEFT =~ $UNSET", { LEFT: "x" }, false],
    ["$LEFT !~ $UNSET", { LEFT: "x" }, true],
    // && before ||, parentheses first.
    ['$A =~ /^content.*/ || $B =~ /thing$/ && $C', { A: "content", C: "" }, true],
    ['$A =~ /^content.*/ || $B =~ /thing$/ && $C', { B: "something", C: "" }, false],
    ['$A =~ /^content.*/ || $B =~ /thing$/ && $C', { B: "something", C: "1" }, true],
    ['($A =~ /^content.*/ || $B) && ($C =~ /thing$/ || $D)', { B: "1", D: "1" }, true],
    ['($A =~ /^content.*/ || $B) && ($C =~ /thing$/ || $D)', { B: "1" }, false],
    [
      '$CI_COMMIT_BRANCH == "my-branch" || (($V1 == "thing" || $V2 == "thing") && $V3)',
      { V2: "thing", V3: "yes" },
      true,
    ],
    ['$CI_COMMIT_BRANCH == "my-branch" || (($V1 == "thing" || $V2 == "thing") && $V3)', { V2: "thing" }, false],
    // GitLab evaluates && with Ruby truthiness: an empty variable does not stop it (issue 321371).
    ['$TEST_VAR && $CI_COMMIT_BRANCH == "master"', { TEST_VAR: "", CI_COMMIT_BRANCH: "master" }, true],
    ['$TEST_VAR && $CI_COMMIT_BRANCH == "master"', { CI_COMMIT_BRANCH: "master" }, false],
  ] as const)("%s with %j is %s", (expression, variables, expected) => {
    expect(evaluateExpression(expression, variables)).toBe(expected);
  });

  it.each(["$VARIABLE =~ /./", "$A ==", "($A == \"x\"", "$A = \"x\"", "", "$A == \"x\" $B"])(
    "rejects invalid syntax: %s",
    (expression) => {
      expect(() => parseExpression(expression)).toThrow(ExpressionSyntaxError);
    },
  );
});

describe("rules and workflow:rules", () => {
  const documented = `
job:
  script: echo "Hello, Rules!"
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
      when: manual
      allow_failure: true
    - if: $CI_PIPELINE_SOURCE == "schedule"
`;

  it("takes the first matching rule and its when (job_rules.md, rules examples)", () => {
    const outcome = evaluatePipeline(documented, { CI_PIPELINE_SOURCE: "merge_request_event", CI_MERGE_REQUEST_IID: "1" });
    expect(outcome).toMatchObject({ created: true, jobs: [{ name: "job", when: "manual", allowFailure: true }] });
    expect(evaluatePipeline(documented, { CI_PIPELINE_SOURCE: "schedule" })).toMatchObject({ jobs: [{ name: "job", when: "on_success" }] });
  });

  it("leaves a job out when no rule matches, and then creates no pipeline", () => {
    expect(jobNames(evaluatePipeline(documented, { CI_PIPELINE_SOURCE: "push" }))).toMatch(/^not created: no stages\/jobs/);
  });

  it("lets a rule without if match always, and when: never exclude", () => {
    const yaml = `
job:
  script: echo
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
      when: never
    - if: $CI_PIPELINE_SOURCE == "schedule"
      when: never
    - when: on_success
other:
  script: echo
  rules:
    - if: $CI_PIPELINE_SOURCE == "push"
`;
    expect(jobNames(evaluatePipeline(yaml, { CI_PIPELINE_SOURCE: "push" }))).toEqual(["job", "other"]);
    expect(jobNames(evaluatePipeline(yaml, { CI_PIPELINE_SOURCE: "web" }))).toEqual(["job"]);
    expect(jobNames(evaluatePipeline(yaml, { CI_PIPELINE_SOURCE: "schedule" }))).toMatch(/^not created/);
  });

  it("uses the job's when for a matched rule without when", () => {
    const yaml = "job:\n  script: echo\n  when: manual\n  rules:\n    - if: $A\n";
    expect(evaluatePipeline(yaml, { A: "1" })).toMatchObject({ jobs: [{ when: "manual" }] });
  });

  it("gives a job without rules GitLab's default: not in merge request pipelines, nor in their child pipelines", () => {
    const yaml = "job-with-no-rules:\n  script: echo\n";
    expect(jobNames(evaluatePipeline(yaml, { CI_PIPELINE_SOURCE: "push", CI_COMMIT_BRANCH: "main" }))).toEqual(["job-with-no-rules"]);
    expect(jobNames(evaluatePipeline(yaml, { CI_PIPELINE_SOURCE: "merge_request_event", CI_MERGE_REQUEST_IID: "3" }))).toMatch(/^not created/);
    // downstream_pipelines.md: the child of a merge request pipeline gets the parent's CI_MERGE_REQUEST_* variables.
    expect(jobNames(evaluatePipeline(yaml, { CI_PIPELINE_SOURCE: "parent_pipeline", CI_MERGE_REQUEST_IID: "3", CI_MERGE_REQUEST_ID: "99" }))).toMatch(
      /^not created/,
    );
  });

  it("runs the documented child pipeline jobs when the parent is a merge request pipeline", () => {
    const child = `
job1:
  script: echo
  rules:
    - if: $CI_PIPELINE_SOURCE == "parent_pipeline"
job2:
  script: echo
  rules:
    - if: $CI_MERGE_REQUEST_ID
`;
    expect(jobNames(evaluatePipeline(child, { CI_PIPELINE_SOURCE: "parent_pipeline", CI_MERGE_REQUEST_ID: "99", CI_MERGE_REQUEST_IID: "3" }))).toEqual([
      "job1",
      "job2",
    ]);
    expect(jobNames(evaluatePipeline(child, { CI_PIPELINE_SOURCE: "parent_pipeline", CI_COMMIT_BRANCH: "main" }))).toEqual(["job1"]);
  });

  it("applies workflow:rules before any job, and when: never stops the pipeline", () => {
    const yaml = `
workflow:
  rules:
    - if: $CI_COMMIT_TITLE =~ /-draft$/
      when: never
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
job:
  script: echo
  rules:
    - when: on_success
`;
    const main = { CI_PIPELINE_SOURCE: "push", CI_COMMIT_BRANCH: "main", CI_DEFAULT_BRANCH: "main" };
    expect(jobNames(evaluatePipeline(yaml, main))).toEqual(["job"]);
    expect(jobNames(evaluatePipeline(yaml, { ...main, CI_COMMIT_TITLE: "wip-draft" }))).toBe("not created: a workflow rule with when: never matches");
    expect(jobNames(evaluatePipeline(yaml, { ...main, CI_COMMIT_BRANCH: "feature" }))).toBe("not created: no workflow rule matches");
  });

  it("resolves extends (hashes merge, the job's own keys win) and reads global variables under pipeline variables", () => {
    const yaml = `
variables:
  MODE: plan
.base:
  rules:
    - if: $MODE == "apply"
  variables:
    A: "1"
job:
  extends: .base
  script: echo
`;
    expect(jobNames(evaluatePipeline(yaml, {}))).toMatch(/^not created/);
    expect(jobNames(evaluatePipeline(yaml, { MODE: "apply" }))).toEqual(["job"]);
  });

  it("refuses a pipeline where a created job needs a job that is not created", () => {
    const yaml = `
a:
  script: echo
  rules:
    - if: $X
b:
  script: echo
  needs: [a]
  rules:
    - when: on_success
`;
    expect(jobNames(evaluatePipeline(yaml, {}))).toBe("not created: 'b' job needs 'a' job, but 'a' is not in the pipeline");
    expect(jobNames(evaluatePipeline(yaml, { X: "1" }))).toEqual(["a", "b"]);
  });

  it("refuses what it does not model instead of guessing", () => {
    expect(() => evaluatePipeline("job:\n  script: echo\n  only: [main]\n", {})).toThrow(/only\/except/);
    expect(() => evaluatePipeline("job:\n  script: echo\n  rules:\n    - changes: [a]\n", {})).toThrow(/rules:changes/);
  });
});
