#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from './agent/config';
import { InputError } from './agent/input';
import { runAgent } from './agent/run-agent';
import { MemoryContextStore } from './context/memory-store';
import { RedisContextStore } from './context/redis-store';
import { persistSession, prepareSession } from './context/session';
import { ContextStoreError, DEFAULT_MAX_STORED_TURNS, DEFAULT_TTL_SECONDS, InvalidContextInputError, type ContextStore } from './context/store';
import type { ApprovalDecision } from './agent/paused-run';
import { resumeAgent } from './agent/resume';
import { BudgetInputError } from './budget/ledger';
import { RunStateError } from './run-state/signed-state';
import { RedisUsedStates } from './run-state/used-states';
import { RedisBudgetLedger } from './budget/redis-ledger';
import { createChatModel, type ProviderName, type ProviderOptions } from './providers/create-model';
import type { AgentResult } from './trace/types';

const USAGE = `usage: agent-core run --config FILE (--prompt TEXT | --messages-json FILE)
                      [--provider openai|gemini] [--base-url URL] [--api-key KEY]
                      [--fallback-provider openai|gemini --fallback-model ID [--fallback-base-url URL]
                       [--fallback-api-key KEY]]
                      [--system TEXT]
                      [--session ID --context memory|redis] [--redis-url URL] [--stream]
       agent-core resume --config FILE --state FILE (--approve | --deny REASON | --edit ARGS_JSON)
                      [provider, fallback, --redis-url and --stream flags as for run]`;

const HELP = `${USAGE}

Runs one agent task and prints its result as JSON: final_answer, finish_reason, trace, used_tools, usage.

  --config FILE          the run's configuration (JSON): model (required), allowed_tools, max_steps,
                         max_tool_calls, loop_limit, timeout, single_call_timeout, total_token_budget,
                         observation_max_len, temperature, json_mode, prompt_examples, tool_settings,
                         output_schema, shared_budget, prices
  --prompt TEXT          the user's message; or --messages-json FILE: a [{role, content}] conversation
                         that ends with the user's message
  --provider NAME        openai (default; any OpenAI-compatible endpoint) or gemini
  --base-url URL         the endpoint (else OPENAI_BASE_URL / GEMINI_BASE_URL, else the provider's own)
  --api-key KEY          else OPENAI_API_KEY / GEMINI_API_KEY
  --fallback-provider NAME, --fallback-model ID, --fallback-base-url URL, --fallback-api-key KEY
                         a second model: when a model call fails after its retries or times out, it
                         answers that step and the rest of the run (key and URL from the same variables)
  --system TEXT          instructions added to the system prompt
  --session ID           keep a conversation: each run reads the session's history and stores its turn,
                         with --context redis (default; --redis-url, else REDIS_URL, else 127.0.0.1:6379)
                         or --context memory (this process only)
  --redis-url URL        the Redis of --session and of the config's shared_budget (else REDIS_URL, else
                         redis://127.0.0.1:6379); a shared budget is counted there, across processes
  --stream               print the run's events as they happen, one JSON object per line (NDJSON):
                         {"type":"step_start","step":1}, {"type":"action","step":1,"tool":..,"summary":..},
                         {"type":"observation",..,"ok":true,"summary":..}, {"type":"answer_delta","text":..}
                         (the final answer's text as the model writes it), {"type":"answer_restart","reason":..}
                         (drop the answer text so far), {"type":"done","finish_reason":..}; then the result
                         as the last line, compact

A config with approval_required pauses before such a call: the run ends awaiting_approval with
pending_action and run_state, signed with AGENT_CORE_STATE_SECRET (required then, at least 16 characters).
resume continues it: --state FILE holds the run_state value, unchanged; --approve runs the call once, --deny
tells the model it was refused and why, --edit runs it with these arguments (checked like any call). With
--redis-url (or REDIS_URL), a used state is recorded there and refused the second time.

Exit status: 0 when the run ended (any finish_reason; read it), 2 for a bad command line, configuration
or input, 1 for anything unexpected.`;

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
  if (command === 'help' || command === '--help' || command === '-h' || ((command === 'run' || command === 'resume') && (rest.includes('--help') || rest.includes('-h')))) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (command !== 'run' && command !== 'resume') throw new UsageError(command ? `unknown command "${command}" (agent-core --help explains)\n${USAGE}` : USAGE);
  let values: Record<string, string | undefined>;
  let stream: boolean;
  try {
    const parsed: Record<string, string | boolean | undefined> = parseArgs({
      args: rest,
      options: {
        config: { type: 'string' },
        prompt: { type: 'string' },
        'messages-json': { type: 'string' },
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'fallback-provider': { type: 'string' },
        'fallback-model': { type: 'string' },
        'fallback-base-url': { type: 'string' },
        'fallback-api-key': { type: 'string' },
        system: { type: 'string' },
        session: { type: 'string' },
        context: { type: 'string' },
        'redis-url': { type: 'string' },
        stream: { type: 'boolean' },
        state: { type: 'string' },
        approve: { type: 'boolean' },
        deny: { type: 'string' },
        edit: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
    stream = parsed.stream === true;
    if (parsed.approve === true) parsed.approve = 'yes';
    delete parsed.stream;
    values = parsed as Record<string, string | undefined>;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }

  if (!values.config) throw new UsageError(`--config FILE is required\n${USAGE}`);
  if (command === 'resume') return resume(values, stream);
  const onlyForResume = ['state', 'approve', 'deny', 'edit'].find((flag) => values[flag] !== undefined);
  if (onlyForResume) throw new UsageError(`--${onlyForResume} belongs to agent-core resume`);
  if (values.prompt === undefined && values['messages-json'] === undefined) {
    throw new UsageError(`give --prompt TEXT or --messages-json FILE\n${USAGE}`);
  }
  const primary = providerFromFlags(values, '');
  const fallback = fallbackFromFlags(values);

  const config = readJsonFile(values.config, '--config');
  const session = sessionOptions(values, hasSharedBudget(config));
  const redisUrl = values['redis-url'] ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const budgetLedger = hasSharedBudget(config) ? new RedisBudgetLedger({ connection: { url: redisUrl } }) : undefined;
  const messages = values['messages-json'] === undefined ? undefined : readJsonFile(values['messages-json'], '--messages-json');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const run = (input: { prompt?: string; messages?: unknown }) =>
    runAgent({
      model: createChatModel(primary),
      ...(fallback ? { fallbackModel: createChatModel(fallback) } : {}),
      config: config as never,
      ...input,
      developerText: values.system,
      sessionId: session?.sessionId,
      budgetLedger,
      stateSecret: process.env.AGENT_CORE_STATE_SECRET,
      signal: controller.signal,
      secrets: [primary.apiKey, ...(fallback ? [fallback.apiKey] : [])],
      // One line per event, written as it happens; the engine has redacted every text in it.
      onEvent: stream ? (event) => process.stdout.write(`${JSON.stringify(event)}\n`) : undefined,
    });

  const output = await (session ? runInSession({ ...session, redisUrl }, values.prompt!, run) : run({ prompt: values.prompt, messages })).finally(() => budgetLedger?.close());
  // Streamed, the result is one more NDJSON line; otherwise it is printed for people to read.
  process.stdout.write(`${stream ? JSON.stringify(output) : JSON.stringify(output, null, 2)}\n`);
  return 0;
}

/** `agent-core resume`: a paused run continued with a person's decision. */
async function resume(values: Record<string, string | undefined>, stream: boolean): Promise<number> {
  const refused = ['prompt', 'messages-json', 'session', 'context', 'system'].find((flag) => values[flag] !== undefined);
  if (refused) throw new UsageError(`--${refused} does not go with resume: the paused run holds its conversation`);
  if (!values.state) throw new UsageError(`resume needs --state FILE: the run_state of the paused run's output\n${USAGE}`);
  const decisions = (['approve', 'deny', 'edit'] as const).filter((flag) => values[flag] !== undefined);
  if (decisions.length !== 1) throw new UsageError('resume needs exactly one of --approve, --deny REASON, --edit ARGS_JSON');
  let decision: ApprovalDecision = { approve: true };
  if (values.deny !== undefined) decision = { deny: values.deny };
  if (values.edit !== undefined) {
    try {
      decision = { edit: JSON.parse(values.edit) };
    } catch (error) {
      throw new UsageError(`--edit: not valid JSON (${(error as Error).message}); give the call's new arguments as one JSON object`);
    }
  }
  const primary = providerFromFlags(values, '');
  const fallback = fallbackFromFlags(values);
  const config = readJsonFile(values.config!, '--config');
  const redisUrl = values['redis-url'] ?? process.env.REDIS_URL;
  if (!redisUrl) process.stderr.write('agent-core: no --redis-url: this run state is not recorded as used, so it could be resumed again\n');
  const usedStates = redisUrl ? new RedisUsedStates({ connection: { url: redisUrl } }) : undefined;
  const budgetLedger = hasSharedBudget(config) ? new RedisBudgetLedger({ connection: { url: redisUrl ?? 'redis://127.0.0.1:6379' } }) : undefined;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const output = await resumeAgent({
    model: createChatModel(primary),
    ...(fallback ? { fallbackModel: createChatModel(fallback) } : {}),
    config: config as never,
    runState: readJsonFile(values.state, '--state'),
    decision,
    stateSecret: process.env.AGENT_CORE_STATE_SECRET,
    usedStates,
    budgetLedger,
    signal: controller.signal,
    secrets: [primary.apiKey, ...(fallback ? [fallback.apiKey] : [])],
    onEvent: stream ? (event) => process.stdout.write(`${JSON.stringify(event)}\n`) : undefined,
  }).finally(() => Promise.all([usedStates?.close(), budgetLedger?.close()]));
  process.stdout.write(`${stream ? JSON.stringify(output) : JSON.stringify(output, null, 2)}\n`);
  return 0;
}

/** `--provider`, `--base-url` and `--api-key` (or with `prefix` "fallback-", the fallback's), with the environment's defaults. */
function providerFromFlags(values: Record<string, string | undefined>, prefix: '' | 'fallback-'): ProviderOptions {
  const provider = (values[`${prefix}provider`] ?? 'openai') as ProviderName;
  if (provider !== 'openai' && provider !== 'gemini') throw new UsageError(`--${prefix}provider must be "openai" or "gemini", not "${provider}"`);
  const environmentKey = provider === 'gemini' ? 'GEMINI_API_KEY' : 'OPENAI_API_KEY';
  const apiKey = values[`${prefix}api-key`] ?? process.env[environmentKey];
  if (!apiKey) throw new UsageError(`no API key${prefix ? ' for the fallback' : ''}: pass --${prefix}api-key KEY or set ${environmentKey}`);
  const baseUrl = values[`${prefix}base-url`] ?? process.env[provider === 'gemini' ? 'GEMINI_BASE_URL' : 'OPENAI_BASE_URL'];
  return { provider, apiKey, baseUrl };
}

/** The fallback model of the `--fallback-*` flags; none without them, and `--fallback-model` is required with any. */
function fallbackFromFlags(values: Record<string, string | undefined>): ProviderOptions | undefined {
  const given = ['fallback-provider', 'fallback-model', 'fallback-base-url', 'fallback-api-key'].filter((flag) => values[flag] !== undefined);
  if (given.length === 0) return undefined;
  if (!values['fallback-model']) throw new UsageError(`--${given[0]} needs --fallback-model ID: the model the fallback is asked for`);
  return { ...providerFromFlags(values, 'fallback-'), model: values['fallback-model'] };
}

interface SessionOptions {
  sessionId: string;
  context: 'memory' | 'redis';
  redisUrl: string;
}

/** Whether the config asks for a shared budget (the config itself is checked by the run). */
function hasSharedBudget(config: unknown): boolean {
  return typeof config === 'object' && config !== null && (config as { shared_budget?: unknown }).shared_budget != null;
}

function sessionOptions(values: Record<string, string | undefined>, sharedBudget: boolean): Omit<SessionOptions, 'redisUrl'> | undefined {
  if (values.session === undefined) {
    if (values.context !== undefined) throw new UsageError('--context needs --session ID');
    if (values['redis-url'] !== undefined && !sharedBudget) throw new UsageError('--redis-url needs --session ID or a shared_budget in the config');
    return undefined;
  }
  if (values['messages-json'] !== undefined) throw new UsageError('--session keeps the history itself: give --prompt TEXT, not --messages-json');
  if (values.prompt === undefined) throw new UsageError('--session needs --prompt TEXT (the new user message)');
  const context = values.context ?? 'redis';
  if (context !== 'memory' && context !== 'redis') throw new UsageError(`--context must be "memory" or "redis", not "${context}"`);
  return { sessionId: values.session, context };
}

/** prepare → run → persist, exactly as the Agent Context → Agent Core → Agent Context chain does. */
async function runInSession(session: SessionOptions, prompt: string, run: (input: { messages: unknown }) => Promise<AgentResult>) {
  const store: ContextStore =
    session.context === 'memory' ? new MemoryContextStore() : new RedisContextStore({ connection: { url: session.redisUrl } });
  try {
    const address = { sessionId: session.sessionId };
    const prepared = await prepareSession(store, { ...address, window: {}, userMessage: prompt });
    const result = await run({ messages: prepared.messages_json });
    const persisted = await persistSession(store, {
      ...address,
      messages: result.messages,
      maxStoredTurns: DEFAULT_MAX_STORED_TURNS,
      ttlSeconds: DEFAULT_TTL_SECONDS,
    });
    return { ...result, session_id: session.sessionId, context: { history_turns: prepared.history_turns, stored_turns: persisted.stored_turns } };
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof InputError ||
      error instanceof ContextStoreError ||
      error instanceof BudgetInputError ||
      error instanceof RunStateError ||
      error instanceof InvalidContextInputError
    ) {
      process.stderr.write(`agent-core: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`agent-core: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
