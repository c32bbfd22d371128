/**
 * `pnpm bench:compare <before.json> <after.json> [--title T] [--out file.md]`: the before and after of one change from
 * two `pnpm bench:stack` results (bench/results/stack-*.json), as Markdown: each target's figure, every phase's
 * throughput and p99, the stack's CPU per PIX create by process, its transactions per create and the event lag.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { normalizeReport, renderComparison } from './lib/compare';
import type { BenchReport } from './lib/report';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { title: { type: 'string' }, out: { type: 'string' } },
});
if (positionals.length !== 2) {
  console.error('usage: pnpm bench:compare <before.json> <after.json> [--title T] [--out file.md]');
  process.exit(2);
}
const [before, after] = positionals.map((path) =>
  normalizeReport(JSON.parse(readFileSync(path, 'utf8')) as BenchReport),
) as [BenchReport, BenchReport];
const markdown = renderComparison(before, after, values.title);
if (values.out) writeFileSync(values.out, markdown);
process.stdout.write(markdown);
