/**
 * `pnpm messages:release`: records the message shapes of this commit as the released ones
 * (packages/contracts/released-messages.json), which every later commit must stay compatible with until the next
 * release (docs/adr/0038-message-compatibility.md). Run it when a release is cut, and only then: recording a break
 * as released hides it from the check that exists to catch it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalog, messageShapes, type MessageShapes } from '../packages/contracts/src';

const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const file = join(__dirname, '..', 'packages/contracts/released-messages.json');
/** One line per field, so a review of the file after a release reads as a list of field contracts. */
function render(shapes: MessageShapes): string {
  const messages = Object.entries(shapes).map(([name, fields]) => {
    const lines = Object.entries(fields).map(
      ([path, field]) => `      ${JSON.stringify(path)}: ${JSON.stringify(field)}`,
    );
    return `    ${JSON.stringify(name)}: {\n${lines.join(',\n')}\n    }`;
  });
  return `{\n  "released_at_commit": ${JSON.stringify(commit)},\n  "messages": {\n${messages.join(',\n')}\n  }\n}\n`;
}

writeFileSync(file, render(messageShapes(catalog.values())));
console.log(`recorded ${catalog.size} messages as released at ${commit.slice(0, 12)} in ${file}`);
