import type { ApprovalDecision } from '../agent/pause/paused-run';
import { resumeAgent } from '../agent/resume';
import { RedisBudgetLedger } from '../budget/redis-ledger';
import { createChatModel } from '../providers/create-model';
import { statSync } from 'node:fs';
import { RunStateError } from '../run-state/signed-state';
import { MAX_STATE_CHARACTERS } from '../run-state/state-size';
import { RedisUsedStates } from '../run-state/used-states';
import { USAGE } from './usage';
import { mcpPinOptions } from './mcp-options';
import type { RunExtras } from './run-extras';
import {
	type StreamChoice,
	UsageError,
	fallbackFromFlags,
	hasSharedBudget,
	providerFromFlags,
	readJsonFile,
} from './flags';

/** `agent-core resume`: a paused run continued with a person's decision. */
export async function resume(
	values: Record<string, string | undefined>,
	stream: StreamChoice,
	extras: RunExtras,
): Promise<number> {
	const refused = [
		'prompt',
		'messages-json',
		'session',
		'context',
		'context-scope',
		'workflow-id',
		'system',
	].find((flag) => values[flag] !== undefined);
	if (refused)
		throw new UsageError(
			`--${refused} does not go with resume: the paused run holds its conversation`,
		);
	if (!values.state)
		throw new UsageError(
			`resume needs --state FILE: the run_state of the paused run's output\n${USAGE}`,
		);
	const decision = decisionFromFlags(values);
	const runState = readStateFile(values.state);
	const primary = providerFromFlags(values, '');
	const fallback = fallbackFromFlags(values);
	const config = readJsonFile(values.config!, '--config');
	const redisUrl = values['redis-url'] ?? process.env.REDIS_URL;
	if (!redisUrl)
		process.stderr.write(
			'agent-core: no --redis-url: this run state is not recorded as used, so it could be resumed again\n',
		);
	const usedStates = redisUrl ? new RedisUsedStates({ connection: { url: redisUrl } }) : undefined;
	const budgetLedger = hasSharedBudget(config)
		? new RedisBudgetLedger({ connection: { url: redisUrl ?? 'redis://127.0.0.1:6379' } })
		: undefined;
	const mcp = mcpPinOptions(values['redis-url'], config);
	const controller = new AbortController();
	process.once('SIGINT', () => controller.abort());
	const output = await resumeAgent({
		model: createChatModel(primary),
		...(fallback ? { fallbackModel: createChatModel(fallback) } : {}),
		config: config as never,
		runState,
		decision,
		stateSecret: process.env.AGENT_CORE_STATE_SECRET,
		usedStates,
		budgetLedger,
		...mcp,
		signal: controller.signal,
		...stream,
		...extras.options,
	})
		.finally(() => Promise.all([usedStates?.close(), budgetLedger?.close(), mcp.mcpPins?.close()]))
		.catch(async (error: unknown) => {
			await extras.finish(undefined);
			throw error;
		});
	process.stdout.write(
		`${stream.onEvent ? JSON.stringify(output) : JSON.stringify(output, null, 2)}\n`,
	);
	await extras.finish(output);
	return 0;
}

/** The --state file's JSON; a file far larger than any state (4 bytes a character, for UTF-8 and indentation) is refused unread. */
function readStateFile(path: string): unknown {
	let size = 0;
	try {
		size = statSync(path).size;
	} catch {
		// readJsonFile says why the file cannot be read.
	}
	if (size > MAX_STATE_CHARACTERS * 4)
		throw new RunStateError(
			`run_state in ${path} is ${size} bytes, more than a paused run's state can be: pass the run_state of the paused run's output, unchanged`,
		);
	return readJsonFile(path, '--state');
}

/** The person's decision: --approve, --deny REASON, --edit ARGS_JSON, or for a paused batch --decisions JSON by call number. */
function decisionFromFlags(values: Record<string, string | undefined>): ApprovalDecision {
	const given = (['approve', 'deny', 'edit', 'decisions'] as const).filter(
		(flag) => values[flag] !== undefined,
	);
	if (given.length !== 1)
		throw new UsageError(
			'resume needs exactly one of --approve, --deny REASON, --edit ARGS_JSON, --decisions JSON',
		);
	if (values.deny !== undefined) return { deny: values.deny };
	if (values.edit !== undefined)
		return {
			edit: parseFlagJson('edit', values.edit, "the call's new arguments as one JSON object"),
		};
	if (values.decisions !== undefined)
		return {
			calls: parseFlagJson(
				'decisions',
				values.decisions,
				'decisions by call number, e.g. {"2": {"approve": true}, "3": {"deny": "not now"}}',
			) as never,
		};
	return { approve: true };
}

function parseFlagJson(flag: string, text: string, what: string): Record<string, unknown> {
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new UsageError(`--${flag}: not valid JSON (${(error as Error).message}); give ${what}`);
	}
}
