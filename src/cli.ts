#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { runAgent } from './agent/run-agent';
import { MemoryContextStore } from './context/memory-store';
import { RedisContextStore } from './context/redis-store';
import { persistSession, prepareSession } from './context/session';
import { ContextStoreError } from './redis/errors';
import { DEFAULT_MAX_STORED_TURNS, DEFAULT_TTL_SECONDS, type ContextStore } from './context/store';
import { RedisBudgetLedger } from './budget/redis-ledger';
import { createChatModel } from './providers/create-model';
import { SETTING_FLAGS, type StreamChoice, UsageError, durableOptions, fallbackFromFlags, hasSharedBudget, providerFromFlags, readJsonFile, runOptionsFromFlags, streamChoice } from './cli/flags';
import { resume } from './cli/resume-command';
import { HELP, USAGE } from './cli/usage';
import { auditCommand } from './cli/audit-command';
import { errorReport } from './cli/error-lines';
import { runExtras } from './cli/run-extras';
import type { AgentResult } from './trace/types';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h' || ((command === 'run' || command === 'resume') && (rest.includes('--help') || rest.includes('-h')))) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (command === 'audit') return auditCommand(rest);
  if (command !== 'run' && command !== 'resume') throw new UsageError(command ? `unknown command "${command}" (agent-core --help explains)\n${USAGE}` : USAGE);
  let values: Record<string, string | undefined>;
  let stream: StreamChoice;
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
        ...SETTING_FLAGS,
        session: { type: 'string' },
        context: { type: 'string' },
        'redis-url': { type: 'string' },
        'run-key': { type: 'string' },
        stream: { type: 'boolean' },
        'stream-answer': { type: 'string' },
        state: { type: 'string' },
        approve: { type: 'boolean' },
        deny: { type: 'string' },
        edit: { type: 'string' },
        'audit-postgres': { type: 'string' },
        'audit-retention-days': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
    stream = streamChoice(parsed.stream === true, parsed['stream-answer'] as string | undefined);
    if (parsed.approve === true) parsed.approve = 'yes';
    delete parsed.stream;
    delete parsed['stream-answer'];
    values = parsed as Record<string, string | undefined>;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }

  if (!values.config) throw new UsageError(`--config FILE is required\n${USAGE}`);
  const extras = runExtras(values);
  if (command === 'resume' && values['run-key'] !== undefined) throw new UsageError('--run-key belongs to agent-core run: a resumed run continues from its --state');
  if (command === 'resume') return resume(values, stream, extras);
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
  const durable = durableOptions(values['run-key'], redisUrl);
  const messages = values['messages-json'] === undefined ? undefined : readJsonFile(values['messages-json'], '--messages-json');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const run = (input: { prompt?: string; messages?: unknown }) =>
    runAgent({
      model: createChatModel(primary),
      ...(fallback ? { fallbackModel: createChatModel(fallback) } : {}),
      config: config as never,
      ...input,
      ...runOptionsFromFlags(values),
      sessionId: session?.sessionId,
      budgetLedger,
      ...durable,
      stateSecret: process.env.AGENT_CORE_STATE_SECRET,
      signal: controller.signal,
      ...stream,
      ...extras.options,
    });

  let output: AgentResult | undefined;
  try {
    output = await (session ? runInSession({ ...session, redisUrl }, values.prompt!, run) : run({ prompt: values.prompt, messages })).finally(() => Promise.all([budgetLedger?.close(), durable.checkpoints?.close()]));
    // Streamed, the result is one more NDJSON line; otherwise it is printed for people to read.
    process.stdout.write(`${stream.onEvent ? JSON.stringify(output) : JSON.stringify(output, null, 2)}\n`);
  } finally {
    await extras.finish(output);
  }
  return 0;
}

interface SessionOptions {
  sessionId: string;
  context: 'memory' | 'redis';
  redisUrl: string;
}

function sessionOptions(values: Record<string, string | undefined>, sharedBudget: boolean): Omit<SessionOptions, 'redisUrl'> | undefined {
  if (values.session === undefined) {
    if (values.context !== undefined) throw new UsageError('--context needs --session ID');
    if (values['redis-url'] !== undefined && !sharedBudget && values['run-key'] === undefined) throw new UsageError('--redis-url needs --session ID, --run-key KEY or a shared_budget in the config');
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
    const history = { history_turns: prepared.history_turns };
    try {
      const persisted = await persistSession(store, { ...address, messages: result.messages, maxStoredTurns: DEFAULT_MAX_STORED_TURNS, ttlSeconds: DEFAULT_TTL_SECONDS });
      return { ...result, session_id: session.sessionId, context: { ...history, stored_turns: persisted.stored_turns } };
    } catch (error) {
      // The run happened (its tools ran): its output is printed whatever became of the history, which says so.
      if (!(error instanceof ContextStoreError)) throw error;
      const notice = `this turn was not stored in the session (${error.message}); the next run of --session ${session.sessionId} will not see it`;
      process.stderr.write(`agent-core: ${notice}\n`);
      return { ...result, session_id: session.sessionId, context: { ...history, stored: false, notice } };
    }
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const { text, code } = errorReport(error);
    process.stderr.write(text);
    process.exitCode = code;
  },
);
