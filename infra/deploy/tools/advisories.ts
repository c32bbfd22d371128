/**
 * `pnpm advisories`: asks the npm registry which known security advisories affect the production dependencies of the
 * processes the images run, and fails on any not accepted in `infra/deploy/advisory-policy.json` (each acceptance
 * with its reason). It uses the registry's bulk advisory endpoint (`POST /-/npm/v1/security/advisories/bulk`, what
 * `npm audit` asks), at `npm_config_registry` or the public registry. A registry that does not answer it (a mirror
 * without advisories answers 405 or 404; no network) is reported as such and is no failure: the check runs where the
 * registry answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies } from 'semver';
import { compiledEntries } from './compiled-entries';
import { listProduction, type Listed } from './sbom';

const root = join(__dirname, '../../..');

/** One advisory as the bulk endpoint answers it. */
export interface Advisory {
  id: number;
  url: string;
  title: string;
  severity: string;
  vulnerable_versions: string;
}

/** Accepted advisories by their id (the GHSA id ending their URL), each with the package and why it is accepted. */
export interface AdvisoryPolicy {
  accepted: Record<string, { package: string; reason: string }>;
}

export interface Finding {
  name: string;
  version: string;
  advisory: string;
  severity: string;
  title: string;
}

export type AdvisoryOutcome =
  | { checked: false; why: string }
  | { checked: true; packages: number; refused: Finding[]; accepted: Finding[]; unusedAcceptances: string[] };

/** Every installed version of every third-party package in these production trees (workspace links aside). */
export function installedVersions(
  trees: Array<Record<string, Listed> | undefined>,
): Record<string, string[]> {
  const versions = new Map<string, Set<string>>();
  const visit = (dependencies: Record<string, Listed> | undefined) => {
    for (const [name, listed] of Object.entries(dependencies ?? {})) {
      if (!listed.version.startsWith('link:')) {
        const known = versions.get(name) ?? new Set<string>();
        if (known.has(listed.version)) continue;
        versions.set(name, known.add(listed.version));
      }
      visit(listed.dependencies);
    }
  };
  trees.forEach(visit);
  return Object.fromEntries([...versions].map(([name, set]) => [name, [...set].sort()]));
}

/** The advisory's id: the GHSA id its URL ends with, else its number. */
const advisoryId = (advisory: Advisory): string => advisory.url.split('/').pop() || String(advisory.id);

/**
 * Asks `registry` about `packages` and sorts what it answers into refused and accepted findings. A version is
 * affected only when it is within the advisory's vulnerable range (checked here too, whatever the registry filtered).
 */
export async function checkAdvisories(
  registry: string,
  packages: Record<string, string[]>,
  policy: AdvisoryPolicy,
  timeoutMs = 15_000,
): Promise<AdvisoryOutcome> {
  const url = new URL(
    '-/npm/v1/security/advisories/bulk',
    registry.endsWith('/') ? registry : `${registry}/`,
  );
  let answer: Record<string, Advisory[]>;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(packages),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return { checked: false, why: `${url.origin} answered ${response.status}` };
    answer = (await response.json()) as Record<string, Advisory[]>;
  } catch (err) {
    return { checked: false, why: `${url.origin} did not answer (${(err as Error).message})` };
  }
  const findings = Object.entries(answer).flatMap(([name, advisories]) =>
    (packages[name] ?? []).flatMap((version) =>
      advisories
        .filter((advisory) => satisfies(version, advisory.vulnerable_versions, { includePrerelease: true }))
        .map((advisory) => ({
          name,
          version,
          advisory: advisoryId(advisory),
          severity: advisory.severity,
          title: advisory.title,
        })),
    ),
  );
  const isAccepted = (finding: Finding) => policy.accepted[finding.advisory]?.package === finding.name;
  return {
    checked: true,
    packages: Object.keys(packages).length,
    refused: findings.filter((finding) => !isAccepted(finding)),
    accepted: findings.filter(isAccepted),
    unusedAcceptances: Object.keys(policy.accepted).filter(
      (id) => !findings.some((finding) => finding.advisory === id),
    ),
  };
}

async function main(): Promise<void> {
  const policy = JSON.parse(
    readFileSync(join(root, 'infra/deploy/advisory-policy.json'), 'utf8'),
  ) as AdvisoryPolicy;
  const trees = (await listProduction(Object.keys(compiledEntries))).map((project) => project.dependencies);
  const registry = process.env.npm_config_registry || 'https://registry.npmjs.org/';
  const outcome = await checkAdvisories(registry, installedVersions(trees), policy);
  /* eslint-disable no-console -- the command's report */
  if (!outcome.checked) {
    console.log(`advisories not checked: ${outcome.why}`);
    return;
  }
  for (const finding of outcome.accepted)
    console.log(`accepted: ${finding.name}@${finding.version} ${finding.advisory} (${finding.severity})`);
  for (const id of outcome.unusedAcceptances)
    console.log(`accepted but no longer found (remove it from advisory-policy.json): ${id}`);
  for (const finding of outcome.refused)
    console.error(
      `${finding.name}@${finding.version}: ${finding.advisory} (${finding.severity}) ${finding.title}`,
    );
  console.log(
    `${outcome.packages} production packages checked: ${outcome.refused.length} advisories not accepted, ` +
      `${outcome.accepted.length} accepted`,
  );
  /* eslint-enable no-console */
  if (outcome.refused.length > 0) process.exit(1);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    // eslint-disable-next-line no-console -- what failed, for the person who ran it
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
