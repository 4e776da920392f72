/** The major version of a Node version string ("22.23.3" -> 22); the running Node's by default. */
export function nodeMajor(version = process.versions.node): number {
  return Number(version.split('.')[0]);
}
