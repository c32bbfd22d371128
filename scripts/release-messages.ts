/**
 * `pnpm messages:release`: records the message shapes of this commit as the released ones
 * (packages/contracts/released-messages.json), which every later commit must stay compatible with until the next
 * release (docs/adr/0038-message-compatibility.md). Run it when a release is cut, and only then: recording a break
 * as released hides it from the check that exists to catch it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalog, messageShapes, renderReleasedMessages } from '../packages/contracts/src';

const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const file = join(__dirname, '..', 'packages/contracts/released-messages.json');
writeFileSync(file, renderReleasedMessages(commit, messageShapes(catalog.values())));
console.log(`recorded ${catalog.size} messages as released at ${commit.slice(0, 12)} in ${file}`);
