#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from './agent/config';
import { InputError } from './agent/input';
import { runAgent } from './agent/run-agent';
import { createChatModel, type ProviderName } from './providers/create-model';

const USAGE = `usage: agent-core run --config FILE (--prompt TEXT | --messages-json FILE)
                      [--provider openai|gemini] [--base-url URL] [--api-key KEY]
                      [--system TEXT]`;

/** A command-line mistake: printed as one line, exit status 2. */
class UsageError extends Error {}

function readJsonFile(path: string, flag: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag}: ${path} is not valid JSON (${(error as Error).message})`);
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'run') throw new UsageError(command ? `unknown command "${command}"\n${USAGE}` : USAGE);
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: rest,
      options: {
        config: { type: 'string' },
        prompt: { type: 'string' },
        'messages-json': { type: 'string' },
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        system: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | undefined>;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }

  if (!values.config) throw new UsageError(`--config FILE is required\n${USAGE}`);
  if (values.prompt === undefined && values['messages-json'] === undefined) {
    throw new UsageError(`give --prompt TEXT or --messages-json FILE\n${USAGE}`);
  }
  const provider = (values.provider ?? 'openai') as ProviderName;
  if (provider !== 'openai' && provider !== 'gemini') throw new UsageError(`--provider must be "openai" or "gemini", not "${provider}"`);
  const environmentKey = provider === 'gemini' ? 'GEMINI_API_KEY' : 'OPENAI_API_KEY';
  const apiKey = values['api-key'] ?? process.env[environmentKey];
  if (!apiKey) throw new UsageError(`no API key: pass --api-key KEY or set ${environmentKey}`);
  const baseUrl = values['base-url'] ?? process.env[provider === 'gemini' ? 'GEMINI_BASE_URL' : 'OPENAI_BASE_URL'];

  const config = readJsonFile(values.config, '--config');
  const messages = values['messages-json'] === undefined ? undefined : readJsonFile(values['messages-json'], '--messages-json');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());

  const result = await runAgent({
    model: createChatModel({ provider, apiKey, baseUrl }),
    config: config as never,
    prompt: values.prompt,
    messages,
    developerText: values.system,
    signal: controller.signal,
    secrets: [apiKey],
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof InputError) {
      process.stderr.write(`agent-core: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`agent-core: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
