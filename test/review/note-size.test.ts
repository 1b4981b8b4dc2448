/** A review note stays within GitLab's note size limit and says where the whole review is. */
import { fitToNote, GITLAB_NOTE_LIMIT, reviewArtifact } from "../../lib/review/note-size";

test("leaves a review that fits as it is", () => {
  expect(fitToNote("#### a\n\nline\n")).toBe("#### a\n\nline\n");
});

test("cuts a longer review at a line, within the limit, and names the artifact that holds all of it", () => {
  const review = Array.from({ length: 30 }, (_, index) => `line ${index} ${"x".repeat(40)}`).join("\n");
  const note = fitToNote(review, { limit: 600, fullReview: "the job artifact https://gitlab.example.com/g/p/-/jobs/7/artifacts/file/review.md" });
  expect(note.length).toBeLessThanOrEqual(600);
  expect(note).toMatch(/^line 0 x+\nline 1 /);
  expect(note).toMatch(/\nline \d+ x+\n\n---\n\n\*\*This review is longer than a GitLab note holds \(600 characters\) and was cut here\*\*: the whole review is the job artifact https:\/\/gitlab\.example\.com\/g\/p\/-\/jobs\/7\/artifacts\/file\/review\.md\.\n$/);
});

test("uses GitLab's limit of 1,000,000 characters by default", () => {
  expect(GITLAB_NOTE_LIMIT).toBe(1_000_000);
  expect(fitToNote("y".repeat(999_999) + "\n").length).toBe(1_000_000);
  expect(fitToNote(`${"z\n".repeat(600_000)}`).length).toBeLessThanOrEqual(1_000_000);
});

test("names the artifact by the job's URL in a pipeline, and the file outside one", () => {
  expect(reviewArtifact({ CI_JOB_URL: "https://gitlab.example.com/g/p/-/jobs/7" }, "./review.md")).toBe("the job artifact https://gitlab.example.com/g/p/-/jobs/7/artifacts/file/review.md");
  expect(reviewArtifact({}, "out/review.md")).toBe("the file out/review.md");
  expect(reviewArtifact({ CI_JOB_URL: "x" }, undefined)).toBeUndefined();
});
