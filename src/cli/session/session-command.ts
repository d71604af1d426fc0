// `agent-core session list | fork | rewind`: a conversation's turns, a new session from one of them, and going back to one.
import { parseArgs } from 'node:util';
import { forkSession, listSession, rewindSession } from '../../context';
import { UsageError, integerFlags, integerOption } from '../flags';
import { contextChoice, openSessionStore, scopeFlags } from './session-run';
import { SESSION_USAGE } from '../usage';

/** The session subcommands' options, as parseArgs options. */
export const SESSION_FLAGS = {
	session: { type: 'string' },
	'to-session': { type: 'string' },
	turn: integerOption({ min: 0, meaning: 'a turn number of the session' }),
	context: { type: 'string' },
	'context-scope': { type: 'string' },
	'workflow-id': { type: 'string' },
	'redis-url': { type: 'string' },
} as const;

/** Which flags each subcommand takes besides --session and the store's. */
const NEEDS: Record<
	string,
	{ required: Array<'to-session' | 'turn'>; refused: Array<'to-session' | 'turn'> }
> = {
	list: { required: [], refused: ['to-session', 'turn'] },
	fork: { required: ['to-session', 'turn'], refused: [] },
	rewind: { required: ['turn'], refused: ['to-session'] },
};

/** Runs one session subcommand and prints its result as JSON; a bad command line is a UsageError naming the flag (exit 2). */
export async function sessionCommand(args: string[]): Promise<number> {
	const [subcommand, ...rest] = args;
	if (subcommand === undefined || !Object.hasOwn(NEEDS, subcommand)) {
		throw new UsageError(
			(subcommand === undefined
				? 'agent-core session needs list, fork or rewind'
				: `unknown session command "${subcommand}": list, fork or rewind`) + `\n${SESSION_USAGE}`,
		);
	}
	let values: Partial<Record<keyof typeof SESSION_FLAGS, string>>;
	try {
		values = parseArgs({
			args: rest,
			options: SESSION_FLAGS,
			strict: true,
			allowPositionals: false,
		}).values;
	} catch (error) {
		throw new UsageError(`${(error as Error).message}\n${SESSION_USAGE}`);
	}
	const { turn } = integerFlags(SESSION_FLAGS, values);
	if (values.session === undefined)
		throw new UsageError(`--session ID is required: the conversation to ${subcommand}`);
	for (const flag of NEEDS[subcommand].required)
		if (values[flag] === undefined)
			throw new UsageError(`--${flag} is required for session ${subcommand}`);
	for (const flag of NEEDS[subcommand].refused)
		if (values[flag] !== undefined)
			throw new UsageError(`--${flag} does not belong to session ${subcommand}`);
	const scope = scopeFlags(values);
	const context = contextChoice(values.context);
	if (context === 'memory' && values['redis-url'] !== undefined)
		throw new UsageError('--redis-url belongs to --context redis, not --context memory');
	const store = openSessionStore(
		context,
		values['redis-url'] ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
	);
	try {
		const address = { sessionId: values.session, ...scope };
		const result =
			subcommand === 'list'
				? await listSession(store, address)
				: subcommand === 'fork'
					? await forkSession(store, {
							...address,
							toSessionId: values['to-session'],
							atTurn: turn,
						})
					: await rewindSession(store, { ...address, toTurn: turn });
		process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
		return 0;
	} finally {
		await store.close();
	}
}
