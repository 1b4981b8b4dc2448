/**
 * systemd unit files as data: sections of `Key=value` lines (systemd.syntax(7)), written in the order given.
 * A key may repeat (Environment=), so each section is a list of pairs.
 */
export type UnitSection = ReadonlyArray<readonly [key: string, value: string | number]>;
export type UnitFile = Readonly<Record<string, UnitSection>>;

/** The unit file's text. Values may not span lines: systemd would read the rest as another key. */
export function renderUnitFile(comment: string, unit: UnitFile): string {
  const lines = comment.split("\n").map((line) => `# ${line}`.trimEnd());
  for (const [section, entries] of Object.entries(unit)) {
    lines.push(`[${section}]`);
    for (const [key, value] of entries) {
      const text = String(value);
      if (text.includes("\n")) throw new TypeError(`[${section}] ${key}= cannot span lines: ${JSON.stringify(text)}`);
      lines.push(`${key}=${text}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
