/**
 * gitlab.url and clone_url name an instance's root: the toolkit appends /api/v4 and
 * gitlab-runner appends its own paths. A query or a fragment would be sent nowhere useful,
 * and a URL that already ends in an API path (/api/v4) makes every request /api/v4/api/v4/...
 * A path of its own is allowed: it is a relative URL root (GitLab under https://host/gitlab,
 * https://docs.gitlab.com/install/relative_url/). Errors (exit 2): each fails on first use.
 */
import type { CrossCheckFinding } from "./finding";
import { hideUrlPassword } from "./issues";
import type { RunnerModel } from "./schema";

const API_PATH = /\/api(\/v\d+)?\/?$|\/api\/v\d+\//;

export function checkInstanceUrls(model: RunnerModel): CrossCheckFinding[] {
  const { url, clone_url: cloneUrl } = model.gitlab;
  return [...instanceRootProblems(url, ["gitlab", "url"]), ...(cloneUrl ? instanceRootProblems(cloneUrl, ["gitlab", "clone_url"]) : [])];
}

function instanceRootProblems(text: string, path: string[]): CrossCheckFinding[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return []; // the schema refuses it with its own message
  }
  const received = JSON.stringify(hideUrlPassword(text));
  const root = `${url.protocol}//${url.host}`;
  if (url.search !== "" || url.hash !== "" || text.includes("?") || text.includes("#")) {
    return [{ severity: "error", path, expected: `the instance's root URL without a query or fragment, such as ${root}${url.pathname === "/" ? "" : url.pathname}`, received }];
  }
  if (API_PATH.test(url.pathname)) {
    const base = url.pathname.replace(/\/api(\/.*)?$/, "");
    return [{ severity: "error", path, expected: `the instance's root URL, not its API (the toolkit and gitlab-runner add /api/v4 themselves), such as ${root}${base}`, received }];
  }
  return [];
}
