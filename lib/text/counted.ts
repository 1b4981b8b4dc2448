/** "1 job", "2 jobs", "1,200 jobs": a count with its noun in the number it needs. */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}
