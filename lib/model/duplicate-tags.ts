/**
 * The same tag twice in a shard, as written (`tags: [docker, linux, docker]` or "docker, docker").
 * The model drops the second as GitLab does (tags.ts), so it is harmless, but it is most often a
 * typo for another tag: a warning. Read from the data as written, before normalising.
 */
import type { CrossCheckFinding } from "./finding";

export function duplicateTagFindings(data: unknown): CrossCheckFinding[] {
  const shards = (data as { shards?: unknown } | null)?.shards;
  if (!Array.isArray(shards)) return [];
  return shards.flatMap((shard, index): CrossCheckFinding[] => {
    const tags = (shard as { tags?: unknown } | null)?.tags;
    const written = typeof tags === "string" ? [tags] : Array.isArray(tags) && tags.every((tag) => typeof tag === "string") ? (tags as string[]) : [];
    const names = written.flatMap((text) => text.split(",")).map((name) => name.trim()).filter((name) => name !== "");
    const twice = [...new Set(names.filter((name, position) => names.indexOf(name) !== position))];
    if (twice.length === 0) return [];
    return [
      {
        severity: "warning",
        path: ["shards", index, "tags"],
        expected: `each tag once (${twice.map((name) => JSON.stringify(name)).join(", ")} twice; GitLab keeps one, so the second is likely meant to be another tag)`,
        received: JSON.stringify(written),
      },
    ];
  });
}
