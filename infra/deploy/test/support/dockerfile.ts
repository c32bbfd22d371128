/**
 * infra/docker/Dockerfile as the deployment checks read it: parsed by dockerfile-ast and linted by dockerfile-utils (the
 * parser and checks of the Dockerfile language server), and each stage's image configuration resolved as Docker
 * resolves it: a stage built on another inherits its user, working directory, environment, command and health check.
 * With no Docker engine here, this is how the tests know what each image runs and holds.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { runInNewContext } from 'node:vm';
import {
  DockerfileParser,
  type Copy,
  type Env,
  type From,
  type Healthcheck,
  type Instruction,
  type JSONInstruction,
} from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { repoRoot } from './workspace';

export const dockerfilePath = join(repoRoot, 'infra/docker/Dockerfile');

/** What every image of the stack is called, `brazil-payment-gateway-<target>`: compose tags it, Kubernetes pulls it. */
export const imagePrefix = 'brazil-payment-gateway-';

export const imageName = (target: string): string => `${imagePrefix}${target}`;

/** The target an image name builds (`brazil-payment-gateway-payment` -> `payment`), undefined for another image. */
export function targetOfImage(image: string): string | undefined {
  return image.startsWith(imagePrefix) ? image.slice(imagePrefix.length) : undefined;
}

/** A CMD, ENTRYPOINT or health check test: exec form (the words, no shell) or shell form (one command line). */
export interface Command {
  form: 'exec' | 'shell';
  words: string[];
}

export interface HealthCheck {
  /** `--interval`, `--timeout`, `--start-period`, `--retries`, by name without the dashes. */
  options: Record<string, string>;
  test: Command;
}

export interface CopyStep {
  /** The stage (or image) it copies from; undefined: the build context. */
  from?: string;
  sources: string[];
  destination: string;
}

/** A stage with its configuration resolved through the stages it is built on, as its image has it. */
export interface ImageStage {
  name: string;
  /** It, then the stages it is built on, down to the last one named in this file. */
  chain: string[];
  /** The image under its chain (`node:20.20-bookworm-slim`), its build arguments' defaults applied. */
  baseImage: string;
  user?: string;
  workdir?: string;
  env: Record<string, string>;
  cmd?: Command;
  entrypoint?: Command;
  /** Undefined when the chain declares none (the base image's, if any); 'NONE' when it turns it off. */
  healthcheck?: HealthCheck | 'NONE';
  stopSignal?: string;
  /** This stage's own COPY instructions (a base stage's are in the base's layers). */
  copies: CopyStep[];
  /** This stage's own RUN instructions, each as one command line (continuations joined). */
  runs: string[];
}

export interface ParsedDockerfile {
  text: string;
  /** What dockerfile-utils finds wrong: unknown instructions or flags, bad durations, missing arguments... */
  problems: Array<{ line: number; message: string }>;
  stages: ImageStage[];
  /** The stages no other stage builds on or copies from: what `docker build --target` is for. */
  targets: ImageStage[];
  stage(name: string): ImageStage;
}

/** An exec-form array (`["node", "dist/main.js"]`), or the shell form's command line. */
function command(text: string): Command {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    const words = JSON.parse(trimmed) as unknown;
    if (Array.isArray(words) && words.every((word) => typeof word === 'string'))
      return { form: 'exec', words: words as string[] };
  }
  return { form: 'shell', words: [trimmed] };
}

function expandArgs(value: string, args: Record<string, string>): string {
  return value.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (match, name: string) => {
    if (!(name in args)) throw new Error(`infra/docker/Dockerfile: ${match} has no default`);
    return args[name]!;
  });
}

export function readDockerfile(path = dockerfilePath): ParsedDockerfile {
  const text = readFileSync(path, 'utf8');
  const dockerfile = DockerfileParser.parse(text);
  const args = Object.fromEntries(
    dockerfile.getInitialARGs().flatMap((arg) => {
      const property = arg.getProperty();
      return property ? [[property.getName(), property.getValue() ?? '']] : [];
    }),
  );

  // Each FROM opens a stage; the instructions up to the next FROM are its own.
  const raw: Array<{ from: From; instructions: Instruction[] }> = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') raw.push({ from: instruction as From, instructions: [] });
    else raw.at(-1)?.instructions.push(instruction);
  }

  const resolved = new Map<string, ImageStage>();
  raw.forEach(({ from, instructions }, index) => {
    const name = from.getBuildStage() ?? String(index);
    const base = expandArgs(from.getImage() ?? '', args);
    const parent = resolved.get(base);
    const stage: ImageStage = parent
      ? {
          ...parent,
          name,
          chain: [name, ...parent.chain],
          env: { ...parent.env },
          copies: [],
          runs: [],
        }
      : { name, chain: [name], baseImage: base, env: {}, copies: [], runs: [] };
    for (const instruction of instructions) {
      const content = instruction.getArgumentsContent() ?? '';
      switch (instruction.getKeyword()) {
        case 'USER':
          stage.user = content.trim();
          break;
        case 'WORKDIR':
          stage.workdir = posix.resolve(stage.workdir ?? '/', content.trim());
          break;
        case 'ENV':
          for (const property of (instruction as Env).getProperties()) {
            const value = property.getUnescapedValue() ?? '';
            if (value.includes('$'))
              throw new Error(`ENV ${property.getName()}: references are not resolved here`);
            stage.env[property.getName()] = value;
          }
          break;
        case 'CMD':
          stage.cmd = command(content);
          break;
        case 'ENTRYPOINT':
          stage.entrypoint = command(content);
          break;
        case 'STOPSIGNAL':
          stage.stopSignal = content.trim();
          break;
        case 'HEALTHCHECK': {
          const check = instruction as Healthcheck;
          if (check.getSubcommand()?.getValue().toUpperCase() === 'NONE') stage.healthcheck = 'NONE';
          else {
            const test = /\bCMD\s+([\s\S]*)$/.exec(content);
            if (!test) throw new Error(`HEALTHCHECK without CMD: ${content}`);
            stage.healthcheck = {
              options: Object.fromEntries(
                check.getFlags().map((flag) => [flag.getName(), flag.getValue() ?? '']),
              ),
              test: command(test[1]!),
            };
          }
          break;
        }
        case 'COPY': {
          const copy = instruction as Copy;
          const words = (copy as JSONInstruction)
            .getArguments()
            .map((argument) => argument.getValue())
            .filter((word) => !word.startsWith('--'));
          stage.copies.push({
            from: copy.getFromFlag()?.getValue() ?? undefined,
            sources: words.slice(0, -1),
            destination: words.at(-1)!,
          });
          break;
        }
        case 'RUN':
          stage.runs.push(content.trim());
          break;
        default:
          break;
      }
    }
    resolved.set(name, stage);
  });

  const stages = [...resolved.values()];
  const builtOn = new Set([
    ...stages.flatMap((stage) => stage.chain.slice(1)),
    ...stages.flatMap((stage) => stage.copies.flatMap((copy) => (copy.from ? [copy.from] : []))),
  ]);
  return {
    text,
    problems: validate(text).map((diagnostic) => ({
      line: diagnostic.range.start.line + 1,
      message: typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value,
    })),
    stages,
    targets: stages.filter((stage) => !builtOn.has(stage.name)),
    stage(name) {
      const found = resolved.get(name);
      if (!found) throw new Error(`infra/docker/Dockerfile has no stage ${name}`);
      return found;
    },
  };
}

/** The folder of the repository an image's process runs from: its working directory under /app (`services/payment`). */
export function imagePackage(stage: ImageStage): string | undefined {
  return stage.workdir?.startsWith('/app/') ? stage.workdir.slice('/app/'.length) : undefined;
}

/**
 * The file a command runs, from the repository's root, when the command is `node [--option=value...] <file>` relative to the image's
 * working directory (`services/payment/dist/migrate.js`); undefined otherwise.
 */
export function commandFile(stage: ImageStage, words: readonly string[] | undefined): string | undefined {
  const folder = imagePackage(stage);
  if (!folder || !words || words.length < 2 || words[0] !== 'node') return undefined;
  // node's own options (`--name=value`) come before the file.
  const options = words.slice(1, -1);
  if (!options.every((word) => /^--[a-z-]+=\S+$/.test(word))) return undefined;
  return posix.join(folder, words[words.length - 1]!);
}

/** Where a health check connects, and for HTTP the path it asks for. */
export interface Probe {
  kind: 'http' | 'tcp';
  host: string;
  port: number;
  path?: string;
}

/**
 * What a `node -e <script>` health check probes given the container's environment: the script is run with stand-ins
 * for `fetch` and `net.connect` that record the address instead of connecting.
 */
export function probedAddress(test: Command, env: Record<string, string>): Probe {
  if (test.form !== 'exec' || test.words[0] !== 'node' || test.words[1] !== '-e' || test.words.length !== 3)
    throw new Error(`not a node -e health check: ${JSON.stringify(test.words)}`);
  const probes: Probe[] = [];
  const pending = { then: () => pending, on: () => pending, catch: () => pending };
  runInNewContext(test.words[2]!, {
    process: { env: { ...env }, exit: () => undefined },
    fetch: (url: string) => {
      const { hostname, port, pathname } = new URL(url);
      probes.push({ kind: 'http', host: hostname, port: Number(port), path: pathname });
      return pending;
    },
    require: (module: string) => {
      if (module !== 'net' && module !== 'node:net') throw new Error(`the health check requires ${module}`);
      return {
        connect: (port: number, host: string) => {
          probes.push({ kind: 'tcp', host, port: Number(port) });
          return pending;
        },
      };
    },
  });
  if (probes.length !== 1) throw new Error(`the health check probes ${probes.length} addresses`);
  return probes[0]!;
}
