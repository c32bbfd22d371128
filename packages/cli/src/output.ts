import { styleText } from 'node:util';

export interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface OutputSettings {
  stdout: Stream;
  stderr: Stream;
  json: boolean;
  color: 'auto' | 'never' | 'always';
  /** --field: print only this field of the result (dotted for a nested one), as plain text. */
  field?: string;
}

type Style = 'green' | 'red' | 'yellow' | 'cyan' | 'dim' | 'bold';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_INTERVAL_MS = 80;

/**
 * Where every command writes. Results go to stdout: JSON with --json, text otherwise. Progress goes to stderr: an
 * animated spinner in a terminal, one plain line per finished step when piped, nothing with --json. Colours only in a
 * terminal (or FORCE_COLOR), never with NO_COLOR.
 */
export class Output {
  readonly json: boolean;
  private readonly colored: boolean;
  private readonly animated: boolean;

  constructor(private readonly settings: OutputSettings) {
    this.json = settings.json;
    const terminal = Boolean(settings.stdout.isTTY);
    this.colored = settings.color === 'always' || (settings.color === 'auto' && terminal && !settings.json);
    this.animated = Boolean(settings.stderr.isTTY) && !settings.json;
  }

  style(style: Style, text: string): string {
    // Decided above for this command's streams and flags; Node would otherwise judge by process.stdout alone.
    return this.colored ? styleText(style, text, { validateStream: false }) : text;
  }

  /** One line of the command's result (text mode). */
  line(text = ''): void {
    this.settings.stdout.write(`${text}\n`);
  }

  /**
   * The command's result: with --field only that field (a string as it is, anything else as JSON), else as JSON with
   * --json, else as the text `human` makes of it.
   */
  result<T>(value: T, human: (value: T) => string): void {
    if (this.settings.field !== undefined) this.line(fieldText(value, this.settings.field));
    else if (this.json) this.settings.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else this.line(human(value));
  }

  /** One JSON value per line (--json streams such as `listen`). */
  jsonLine(value: unknown): void {
    this.settings.stdout.write(`${JSON.stringify(value)}\n`);
  }

  error(message: string): void {
    this.settings.stderr.write(`${this.style('red', 'error')} ${message}\n`);
  }

  notice(message: string): void {
    if (!this.json) this.settings.stderr.write(`${message}\n`);
  }

  /** Runs one step of a longer command, showing it while it runs and how it ended. */
  async step<T>(label: string, work: () => Promise<T>, outcome: (value: T) => string = () => ''): Promise<T> {
    const stderr = this.settings.stderr;
    let frame = 0;
    const draw = () =>
      stderr.write(`\r\x1b[2K${this.style('cyan', SPINNER[frame++ % SPINNER.length]!)} ${label}`);
    const timer = this.animated ? setInterval(draw, SPINNER_INTERVAL_MS) : undefined;
    if (timer) draw();
    const clear = this.animated ? '\r\x1b[2K' : '';
    try {
      const value = await work();
      const detail = outcome(value);
      if (!this.json)
        stderr.write(
          `${clear}${this.style('green', '✓')} ${label}${detail ? ` ${this.style('dim', detail)}` : ''}\n`,
        );
      return value;
    } catch (err) {
      if (!this.json) stderr.write(`${clear}${this.style('red', '✗')} ${label}\n`);
      throw err;
    } finally {
      clearInterval(timer);
    }
  }
}

/** The value at a dotted path of a result, for a shell variable: `PAY=$(gateway payments create ... --field payment_id)`. */
function fieldText(value: unknown, path: string): string {
  let found: unknown = value;
  for (const key of path.split('.')) {
    if (found === null || typeof found !== 'object' || !Object.hasOwn(found, key))
      throw new Error(`the result has no field ${path}`);
    found = (found as Record<string, unknown>)[key];
  }
  return typeof found === 'string' ? found : JSON.stringify(found);
}

/** `key  value` lines, keys aligned; nested objects flattened to dotted keys (`pix.copia_e_cola`). */
export function formatRecord(record: object): string {
  const entries = flatten(record);
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${key.padEnd(width)}  ${formatValue(value)}`).join('\n');
}

function flatten(record: object, prefix = ''): Array<[string, unknown]> {
  return Object.entries(record).flatMap(([key, value]): Array<[string, unknown]> =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? flatten(value, `${prefix}${key}.`)
      : [[`${prefix}${key}`, value]],
  );
}

/** A table of the columns present in the items, in the order given. */
export function formatTable(items: readonly object[], columns: readonly string[]): string {
  if (items.length === 0) return '(none)';
  const present = columns.filter((column) => items.some((item) => column in item));
  const rows = items.map((item) =>
    present.map((column) => formatValue((item as Record<string, unknown>)[column])),
  );
  const widths = present.map((column, i) => Math.max(column.length, ...rows.map((row) => row[i]!.length)));
  const render = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [render(present.map((column) => column.toUpperCase())), ...rows.map(render)].join('\n');
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value) && value.every((each) => typeof each !== 'object')) return value.join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  // A QR code's PNG is thousands of characters no terminal shows usefully: --json has it whole.
  if (typeof value === 'string' && value.startsWith('data:'))
    return `${value.slice(0, value.indexOf(',') + 1)}… (--json)`;
  return String(value);
}
