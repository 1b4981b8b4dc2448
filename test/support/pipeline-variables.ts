/** Predefined CI/CD variables of the pipelines the pipeline tests evaluate: a project, and a merge request pipeline of it. */
export const projectVariables = { CI_DEFAULT_BRANCH: "main", CI_PROJECT_ID: "42", CI_SERVER_URL: "https://gitlab.example.com" };

export const mergeRequestVariables = {
  ...projectVariables,
  CI_PIPELINE_SOURCE: "merge_request_event",
  CI_COMMIT_REF_NAME: "change-cell-1",
  CI_MERGE_REQUEST_ID: "9001",
  CI_MERGE_REQUEST_IID: "17",
  CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: "change-cell-1",
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "main",
  CI_MERGE_REQUEST_DIFF_BASE_SHA: "0123456789abcdef0123456789abcdef01234567",
};
