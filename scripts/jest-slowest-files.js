/**
 * Jest reporter: at the end of a run, the slowest test files with their wall time, and where the time went by
 * suffix (unit, int, e2e). The suite's duration is kept under a budget (docs/testing.md#duration); these lines, at
 * the tail of a CI log, say which files to shorten first.
 */
class SlowestFilesReporter {
  constructor(_globalConfig, options = {}) {
    this.count = options.count ?? 25;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((file) => ({
        path: file.testFilePath.replace(`${process.cwd()}/`, ''),
        seconds: (file.perfStats.end - file.perfStats.start) / 1000,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    if (files.length === 0) return;
    const bySuffix = {};
    for (const file of files) {
      const suffix = /\.(unit|int|e2e|faults)\.test\.ts$/.exec(file.path)?.[1] ?? 'other';
      bySuffix[suffix] = (bySuffix[suffix] ?? 0) + file.seconds;
    }
    const lines = [
      '',
      `Slowest ${Math.min(this.count, files.length)} of ${files.length} test files (wall seconds per file):`,
      ...files.slice(0, this.count).map((file) => `  ${file.seconds.toFixed(1).padStart(7)}  ${file.path}`),
      `Seconds per kind, summed over files: ${Object.entries(bySuffix)
        .map(([suffix, seconds]) => `${suffix} ${seconds.toFixed(0)}`)
        .join(', ')}`,
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

module.exports = SlowestFilesReporter;
