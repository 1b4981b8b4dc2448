/**
 * `init --update`'s edits of a models repository's .gitlab-ci.yml: the project path or the version in
 * the component's include line (`component: $CI_SERVER_FQDN/<project>/runner-fleet@<version>`, as
 * templates/init/gitlab-ci.yml.hbs writes it) and the `toolkit_version` input. Line edits, not a YAML
 * round trip: every other line of the team's (comments, jobs of its own) stays byte for byte.
 */
import { UserInputError } from "../../lib/process/errors";

/** The include line: its indentation and key, the project, the component's name and `@`, the version. */
const COMPONENT_LINE = /^(\s*(?:-\s+)?component:\s*["']?\$CI_SERVER_FQDN\/)([^\s"'@]+)(\/runner-fleet@)([^\s"']+)/m;
const TOOLKIT_VERSION_LINE = /^(\s*toolkit_version:\s*)("[^"]*"|'[^']*'|[^\s#]+)/m;

function includeLine(file: string, text: string): RegExpExecArray {
  const match = COMPONENT_LINE.exec(text);
  if (!match) {
    throw new UserInputError(
      `${file}: expected the include of the runner-fleet component, such as \`- component: $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@1.2.0\`, received a file without one; add it, or change the file by hand`,
    );
  }
  return match;
}

/** `text` with the include's project path replaced. */
export function withComponentProject(file: string, text: string, project: string): string {
  includeLine(file, text);
  return text.replace(COMPONENT_LINE, (_line, start: string, _project: string, name: string, version: string) => `${start}${project}${name}${version}`);
}

/** `text` with the include's version and its `toolkit_version` input (when it names a version, not "lockfile") set to `version`. */
export function withComponentVersion(file: string, text: string, version: string): string {
  includeLine(file, text);
  const included = text.replace(COMPONENT_LINE, (_line, start: string, project: string, name: string) => `${start}${project}${name}${version}`);
  return included.replace(TOOLKIT_VERSION_LINE, (line, key: string, value: string) => (/^["']?lockfile["']?$/.test(value) ? line : `${key}"${version}"`));
}
