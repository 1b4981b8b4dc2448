/** Shortening names to a cloud's length limit without making two of them equal. */
import { createHash } from "node:crypto";

/** Shortens `name` to `max` characters, keeping it unique with a hash suffix when cut. */
export function fitName(name: string, max: number): string {
  if (name.length <= max) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 6);
  return `${name.slice(0, max - 7).replace(/-+$/, "")}-${hash}`;
}
