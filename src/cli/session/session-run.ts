// `agent-core run --session ID`: prepare before the run and persist after it, exactly as Agent Context → Agent Core → Agent Context does.
import {
	BUSY_POLICIES,
	CONTEXT_SCOPES,
	DEFAULT_BUSY_TTL_SECONDS,
	DEFAULT_MAX_STORED_TURNS,
	DEFAULT_TTL_SECONDS,
	MemoryContextStore,
	persistSession,
	prepareSession,
	RedisContextStore,
	releaseSession,
	type BusyPolicy,
	type ContextScope,
	type ContextStore,
} from '../../context';
import { RedisError } from '../../redis/errors';
import type { AgentResult } from '../../trace/types';
import { UsageError } from '../flags';

/** Which session, where, and how it is read and guarded. */
export interface SessionOptions extends SessionScope {
	sessionId: string;
	context: 'memory' | 'redis';
	redisUrl: string;
	/** `all`: every live turn (the engine fits them by tokens, as Agent Context version 2 does); `turns`: the newest 20. */
	window: 'all' | 'turns';
	busy: BusyPolicy;
	/** Seconds the lock lasts if this process dies mid-run: the run's timeout and a minute, at least DEFAULT_BUSY_TTL_SECONDS. */
	busyTtlSeconds: number;
}

/** `--context-scope` and `--workflow-id`, as the session functions take them. */
export interface SessionScope {
	contextScope?: ContextScope;
	workflowId?: string;
}

/**
 * `--context-scope shared|workflow` (default shared: the session id is the whole key) and `--workflow-id ID`, which
 * only a workflow scope takes; a workflow scope without it is the library's ConfigError naming context_scope.
 */
export function scopeFlags(values: Record<string, string | undefined>): SessionScope {
	const scope = values['context-scope'];
	if (scope !== undefined && !(CONTEXT_SCOPES as readonly string[]).includes(scope))
		throw new UsageError(`--context-scope must be "shared" or "workflow", not "${scope}"`);
	const workflowId = values['workflow-id'];
	if (workflowId !== undefined && scope !== 'workflow')
		throw new UsageError('--workflow-id belongs to --context-scope workflow');
	return {
		...(scope ? { contextScope: scope as ContextScope } : {}),
		...(workflowId === undefined ? {} : { workflowId }),
	};
}

/** The --session flags, checked; none without --session (and then no flag that needs it). */
export function sessionOptions(
	values: Record<string, string | undefined>,
	config: unknown,
	usesRedis: boolean,
): Omit<SessionOptions, 'redisUrl'> | undefined {
	if (values.session === undefined) {
		const orphan = ['context', 'busy', 'window', 'context-scope', 'workflow-id'].find(
			(flag) => values[flag] !== undefined,
		);
		if (orphan) throw new UsageError(`--${orphan} needs --session ID`);
		if (values['redis-url'] !== undefined && !usesRedis)
			throw new UsageError(
				'--redis-url needs --session ID, --run-key KEY, a shared_budget or mcp_servers in the config',
			);
		return undefined;
	}
	if (values['messages-json'] !== undefined)
		throw new UsageError(
			'--session keeps the history itself: give --prompt TEXT, not --messages-json',
		);
	if (values.prompt === undefined)
		throw new UsageError('--session needs --prompt TEXT (the new user message)');
	const context = contextChoice(values.context);
	const window = values.window ?? 'all';
	if (window !== 'all' && window !== 'turns')
		throw new UsageError(
			`--window must be "all" (every live turn, fitted by tokens) or "turns" (the newest 20), not "${window}"`,
		);
	const busy = (values.busy ?? 'reject') as BusyPolicy;
	if (!BUSY_POLICIES.includes(busy))
		throw new UsageError(`--busy must be one of ${BUSY_POLICIES.join(', ')}, not "${values.busy}"`);
	const timeout = Number((config as { timeout?: unknown } | null)?.timeout ?? 120);
	const busyTtlSeconds = Math.max(
		DEFAULT_BUSY_TTL_SECONDS,
		Math.ceil(Number.isFinite(timeout) ? timeout : 120) + 60,
	);
	const scope = scopeFlags(values);
	return { sessionId: values.session, ...scope, context, window, busy, busyTtlSeconds };
}

/** `--context`: redis (default) or memory (this process only). */
export function contextChoice(value: string | undefined): 'memory' | 'redis' {
	const context = value ?? 'redis';
	if (context !== 'memory' && context !== 'redis')
		throw new UsageError(`--context must be "memory" or "redis", not "${context}"`);
	return context;
}

/** The store of `--context` (a Redis one at `redisUrl`); the caller closes it. */
export function openSessionStore(context: 'memory' | 'redis', redisUrl: string): ContextStore {
	return context === 'memory'
		? new MemoryContextStore()
		: new RedisContextStore({ connection: { url: redisUrl } });
}

/** prepare → run → persist, exactly as the Agent Context → Agent Core → Agent Context chain does. */
export async function runInSession(
	session: SessionOptions,
	prompt: string,
	run: (input: { messages: unknown }) => Promise<AgentResult>,
) {
	const store = openSessionStore(session.context, session.redisUrl);
	try {
		const { sessionId, contextScope, workflowId } = session;
		const address = { sessionId, contextScope, workflowId };
		const prepared = await prepareSession(store, {
			...address,
			window: session.window === 'all' ? { allLiveTurns: true } : {},
			userMessage: prompt,
			busy: { policy: session.busy, ttlSeconds: session.busyTtlSeconds },
		});
		const busyToken = prepared.busy_token;
		let result: AgentResult;
		try {
			result = await run({ messages: prepared.messages_json });
		} catch (error) {
			// A run that never reaches persist lets go of the session now, rather than when the lock expires.
			if (busyToken) await releaseSession(store, address, busyToken).catch(() => undefined);
			throw error;
		}
		const history = { history_turns: prepared.history_turns };
		try {
			const persisted = await persistSession(store, {
				...address,
				messages: result.messages,
				maxStoredTurns: DEFAULT_MAX_STORED_TURNS,
				ttlSeconds: DEFAULT_TTL_SECONDS,
				...(busyToken ? { busyToken } : {}),
			});
			if (!persisted.stored && persisted.skipped && result.messages.at(-1)?.role === 'assistant') {
				process.stderr.write(`agent-core: ${persisted.skipped}\n`);
				return {
					...result,
					session_id: session.sessionId,
					context: { ...history, stored: false, notice: persisted.skipped },
				};
			}
			const { stored_turns, seq, archived_turns, summary_stored } = persisted;
			return {
				...result,
				session_id: session.sessionId,
				context: { ...history, stored_turns, seq, archived_turns, summary_stored },
			};
		} catch (error) {
			// The run happened (its tools ran): its output is printed whatever became of the history, which says so.
			if (!(error instanceof RedisError)) throw error;
			const notice = `this turn was not stored in the session (${error.message}); the next run of --session ${session.sessionId} will not see it`;
			process.stderr.write(`agent-core: ${notice}\n`);
			return {
				...result,
				session_id: session.sessionId,
				context: { ...history, stored: false, notice },
			};
		}
	} finally {
		await store.close();
	}
}
