/**
 * Runner tags as GitLab stores them. The runners API coerces `tag_list` with
 * API::Validations::Types::CommaSeparatedToArray (every element split on commas and
 * stripped), and acts-as-taggable-on drops blank and duplicate names, keeping the
 * first occurrence; names stay case-sensitive (GitLab sets strict_case_match).
 */
export function normaliseTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags.flatMap((element) => element.split(","))) {
    const name = tag.trim();
    if (name !== "") seen.add(name);
  }
  return [...seen];
}
