// What persist stores of Agent Core's `messages` output: the summary it wrote (only as the first message), and the turn, cut to Max Stored Turn Size.
import { InputError } from '../../core/input-error';
import {
	truncateObservation,
	parseMessages,
	type ChatMessage,
	type ToolResultMemory,
} from '../../core/messages';
import type { StoredSummary } from '../store';

/** The turn and summary persist writes. */
export interface AgentTurn {
	/** The user message and, when the run answered, the answer (with its tool results). */
	messages: ChatMessage[];
	answered: boolean;
	/** The summary Agent Core wrote this run, when its output starts with one. */
	summary?: StoredSummary;
}

/**
 * Reads Agent Core's `messages` output. A summary is accepted only as its first message: the engine is the one
 * writer of summaries, and puts a summary it wrote there; a summary anywhere else (say, one copied from a
 * conversation a caller sent in) is refused, naming its path. System messages are not stored with a turn.
 *
 * Each message keeps an equal share of `maxTurnCharacters` (cut with a visible marker, as before); the tool results
 * of the answer — already cut by Agent Core to the size README documents — are cut further only when the turn
 * would be over `maxTurnCharacters`: their observations (and arguments) then share what the messages left.
 */
export function agentTurn(raw: unknown, maxTurnCharacters: number): AgentTurn {
	const parsed = parseMessages(raw, 'messages');
	parsed.forEach((message, index) => {
		if (message.summary && index > 0) {
			throw new InputError(
				'messages',
				`messages[${index}].summary: a summary is accepted only as the first message of Agent Core's messages output, where Agent Core puts the summary it wrote`,
			);
		}
	});
	const summary = parsed[0]?.summary
		? { ...parsed[0].summary, content: truncateObservation(parsed[0].content, maxTurnCharacters) }
		: undefined;
	const rest = (summary ? parsed.slice(1) : parsed).filter((message) => message.role !== 'system');
	if (rest.length === 0) {
		throw new InputError(
			'messages',
			'messages has no user or assistant message to persist; pass the Agent Core output field "messages"',
		);
	}
	// Bounds what every later prepare loads: a turn is never split, so its size is capped when it is written.
	const share = Math.floor(maxTurnCharacters / rest.length);
	const messages = rest.map((message) => ({
		...message,
		content: truncateObservation(message.content, share),
	}));
	const left =
		maxTurnCharacters - messages.reduce((total, message) => total + message.content.length, 0);
	const results = messages.flatMap((message) => message.tool_results ?? []);
	if (results.length > 0 && toolResultsSize(results) > left) {
		const each = Math.max(1, Math.floor(Math.max(0, left) / results.length));
		for (const message of messages)
			if (message.tool_results)
				message.tool_results = message.tool_results.map((result) => cutToolResult(result, each));
	}
	return {
		messages,
		answered: messages[messages.length - 1].role === 'assistant',
		...(summary ? { summary } : {}),
	};
}

/** Characters of tool results against the turn's size: observations, errors and arguments. */
function toolResultsSize(results: readonly ToolResultMemory[]): number {
	return results.reduce(
		(total, result) =>
			total +
			result.observation.length +
			(result.error?.length ?? 0) +
			JSON.stringify(result.args).length,
		0,
	);
}

/** One tool result within `share` characters: its observation cut, and arguments too long shown as a cut text. */
function cutToolResult(result: ToolResultMemory, share: number): ToolResultMemory {
	const args = JSON.stringify(result.args);
	return {
		...result,
		args: args.length > share ? { _cut: truncateObservation(args, share) } : result.args,
		observation: truncateObservation(result.observation, share),
		...(result.error === undefined ? {} : { error: truncateObservation(result.error, share) }),
	};
}
