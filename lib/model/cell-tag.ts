/**
 * The tag every runner of a cell carries besides the model's tags: `runner-fleet:<cell>`.
 *
 * Why: the runner listings (GET /runners, /runners/all, /groups/:id/runners) show no
 * maintenance note, where the marker that identifies a shard's runner lives
 * (lib/gitlab/runner-spec.ts runnerMarker), but they filter by `tag_list`. With the tag, one listing
 * per cell holds exactly the cell's runners, so lookups, status and prune read the details
 * of the cell's runners only, never of the instance's other runners (lib/gitlab/runner-census.ts).
 * The tag is an index, not the identity: a runner counts as the shard's only when its
 * maintenance note carries the marker, so someone tagging their own runner with it changes
 * nothing here.
 *
 * Job routing does not change: a runner takes a job when the job's tags are all among the
 * runner's (Ci::Runner#accepting_tags?: `(build.tag_list - tag_list).empty?`, in
 * gitlabhq app/models/ci/runner.rb), so one more tag on the runner loses it no job, and
 * `run_untagged` is untouched. Only a job that asks for `runner-fleet:<cell>` itself would
 * be routed by it, which is why the prefix is reserved: a model's shard tag may not start
 * with it (exit 2), so the cell's tag never collides with the users' own tags.
 *
 * It counts towards GitLab's 50 tags a runner (Ci::Runner::TAG_LIST_MAX_LENGTH; more are
 * refused with 400 "Too many tags specified"), so a shard may name 49.
 *
 * Runners created before the tag existed are still found by their stored id or their
 * description (lib/gitlab/runner-census.ts), and the next onboard run adds the tag to them: a
 * dry run shows it as `tag_list: [...] -> [..., runner-fleet:<cell>]`.
 */
import type { RunnerModel } from "./schema";

/** Tags starting with this are the tool's own. */
export const CELL_TAG_PREFIX = "runner-fleet:";

/** GitLab's limit on a runner's tags (Ci::Runner::TAG_LIST_MAX_LENGTH). */
export const GITLAB_MAX_TAGS = 50;

/** Tags a shard may name itself: the cell's tag takes one of GitLab's 50. */
export const MAX_SHARD_TAGS = GITLAB_MAX_TAGS - 1;

export function cellTag(model: Pick<RunnerModel, "cell">): string {
  return `${CELL_TAG_PREFIX}${model.cell.id}`;
}

/** Whether a tag is in the tool's reserved namespace (compared without case: GitLab's are case-sensitive, a reader's eye is not). */
export function isReservedTag(tag: string): boolean {
  return tag.toLowerCase().startsWith(CELL_TAG_PREFIX);
}

/** What is wrong with a shard's tags because of the cell's tag: what is expected and what was received; undefined when nothing. */
export function cellTagProblem(tags: readonly string[]): { readonly expected: string; readonly received: unknown } | undefined {
  const reserved = tags.filter(isReservedTag);
  if (reserved.length > 0) {
    return { expected: `tags that do not start with "${CELL_TAG_PREFIX}": that prefix is reserved for the cell's own tag, which onboard adds to every runner`, received: reserved };
  }
  if (tags.length > MAX_SHARD_TAGS) {
    return { expected: `at most ${MAX_SHARD_TAGS} tags: GitLab keeps ${GITLAB_MAX_TAGS} a runner, and onboard adds the cell's own tag`, received: `${tags.length} tags` };
  }
  return undefined;
}
