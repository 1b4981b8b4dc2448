/** "3m ago", "2h ago", "5d ago": how long ago a GitLab timestamp was, for people scanning a status. */
export function relativeTime(iso: string | null, nowMs: number): string {
  if (iso === null) return "never";
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return `at ${iso}`;
  const seconds = Math.round((nowMs - then) / 1000);
  if (seconds < 0) return "just now";
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}
