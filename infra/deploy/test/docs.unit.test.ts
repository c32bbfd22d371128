import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from './support/deployment';

/** Every file git tracks (or would, once added): what a clone holds. */
function trackedFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return listed
    .split('\0')
    .filter(
      (file) => file !== '' && existsSync(join(repoRoot, file)) && statSync(join(repoRoot, file)).isFile(),
    );
}

/** The repository's own documentation: the README, the changelog and every guide under docs/. */
function markdownFiles(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? docs(join(dir, entry.name))
        : entry.name.endsWith('.md')
          ? [join(dir, entry.name)]
          : [],
    );
  return ['README.md', 'CHANGELOG.md', ...docs('docs')];
}

/** The text of a Markdown file outside its fenced code blocks (a `# comment` in a shell block is no heading). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

describe('the repository tells its own story', () => {
  test('no tracked file refers to the product brief outside the repository', () => {
    // Spelled in pieces, so this file does not name them itself.
    const outside = [
      ['decisions', 'md'].join('.'),
      ['interface', 'md'].join('.'),
      ['..', 'shared'].join('/'),
    ];
    const offenders = trackedFiles().flatMap((file) => {
      const bytes = readFileSync(join(repoRoot, file));
      if (bytes.includes(0)) return [];
      const text = bytes.toString('utf8');
      return outside.filter((name) => text.includes(name)).map((name) => `${file}: ${name}`);
    });
    expect(offenders).toEqual([]);
  });

  test('every relative link of the README and the docs resolves, anchors included', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      for (const line of prose(text))
        for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto: ...
          const [path, anchor] = target!.split('#') as [string, string | undefined];
          const resolved = path === '' ? join(repoRoot, file) : join(repoRoot, dirname(file), path);
          if (!existsSync(resolved)) {
            broken.push(`${file}: ${target} (no ${relative(repoRoot, resolved)})`);
            continue;
          }
          if (anchor !== undefined && resolved.endsWith('.md')) {
            if (!anchors(readFileSync(resolved, 'utf8')).has(anchor))
              broken.push(`${file}: ${target} (no heading #${anchor})`);
          }
        }
    }
    expect(broken).toEqual([]);
  });

  test('the README is the product page: at most 400 lines, with the two commands of the quick start', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
    expect(readme).toContain('\nnpm start   #');
    expect(readme).toContain('\nnpm test    #');
  });

  test('every decision record is listed in the records index', () => {
    const index = readFileSync(join(repoRoot, 'docs/adr/README.md'), 'utf8');
    const records = readdirSync(join(repoRoot, 'docs/adr')).filter((name) => /^\d{4}-.+\.md$/.test(name));
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((name) => !index.includes(`](${name})`))).toEqual([]);
  });
});

describe('the configuration reference (docs/configuration.md)', () => {
  // The generator lives with the root's scripts, which no package imports: it is asked as a process.
  let check: { upToDate: boolean; withoutMeaning: string[]; meaningsOfNoVariable: string[] };
  beforeAll(() => {
    const output = execFileSync(
      join(repoRoot, 'node_modules/.bin/tsx'),
      [join(repoRoot, 'scripts/config-reference.ts'), '--check'],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    check = JSON.parse(output.trim().split('\n').pop()!);
  }, 60_000);

  test('is what scripts/config-reference.ts makes of the config schemas now (run `pnpm config-reference`)', () => {
    expect(check.upToDate).toBe(true);
  });

  test('says what every variable of every schema means, and nothing of a variable no schema reads', () => {
    expect(check.withoutMeaning).toEqual([]);
    expect(check.meaningsOfNoVariable).toEqual([]);
  });
});
