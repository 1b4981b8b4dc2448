/**
 * A review note within what GitLab stores. GitLab refuses a note longer than 1,000,000 characters
 * (`validates :note, length: { maximum: Gitlab::Database::MAX_TEXT_SIZE_LIMIT }` in app/models/note.rb,
 * gitlab-org/gitlab-foss@5af535d9; gitlab-org/gitlab#426314 still names that limit). A longer review
 * is cut at a line, and ends by saying where the whole of it is: the review job's artifact.
 */

/** GitLab's Gitlab::Database::MAX_TEXT_SIZE_LIMIT, in characters. */
export const GITLAB_NOTE_LIMIT = 1_000_000;

export interface FitOptions {
  /** @default GITLAB_NOTE_LIMIT */
  readonly limit?: number;
  /** Where the whole review is (the job artifact's URL, or a file name); absent: the note only says it was cut. */
  readonly fullReview?: string;
}

export function fitToNote(markdown: string, options: FitOptions = {}): string {
  const limit = options.limit ?? GITLAB_NOTE_LIMIT;
  if (markdown.length <= limit) return markdown;
  const where = options.fullReview ? `the whole review is ${options.fullReview}` : "the whole review is in the review job's log";
  const footer = `\n\n---\n\n**This review is longer than a GitLab note holds (${limit.toLocaleString("en-US")} characters) and was cut here**: ${where}.\n`;
  const room = limit - footer.length;
  const cut = markdown.lastIndexOf("\n", room);
  return `${markdown.slice(0, cut > 0 ? cut : room)}${footer}`;
}

/** The review artifact's URL in a job (`$CI_JOB_URL/artifacts/file/<path>`), or the file's name outside one. */
export function reviewArtifact(env: NodeJS.ProcessEnv, markdownFile: string | undefined): string | undefined {
  if (!markdownFile) return undefined;
  const path = markdownFile.replace(/^\.\//, "");
  return env.CI_JOB_URL ? `the job artifact ${env.CI_JOB_URL}/artifacts/file/${path.split("/").map(encodeURIComponent).join("/")}` : `the file ${path}`;
}
