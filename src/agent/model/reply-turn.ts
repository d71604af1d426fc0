// What a model's reply asks of the loop: the final answer (checked), a repair, the end of the run, or the calls to run.
import type { AgentConfig } from '../../settings/config';
import type { Tool } from '../../tools/tool';
import type { TraceStep } from '../../trace/types';
import type { ChatResponse } from '../../providers/chat-model';
import type { AnswerRelease } from '../answer/answer-release';
import { newBatch, type BatchState } from '../calls/calls-state';
import { readReply } from '../protocol/protocol';
import { callArgs, type ProtocolFormat } from '../protocol/protocol-schema';
import { answered, failedStep, REPLY_EXCERPT, type StepOutcome } from '../step-outcome';

/**
 * The step's outcome when the reply answers or breaks the protocol; otherwise the calls it asks for — one
 * action as a batch of one — with their args as the protocol's schema sent them (see callArgs). An answer on
 * its way to the listener is released or called off here.
 */
export function replyTurn(
	entry: TraceStep,
	response: ChatResponse,
	context: {
		config: AgentConfig;
		format: ProtocolFormat;
		tools: ReadonlyMap<string, Tool>;
		release?: AnswerRelease;
	},
): StepOutcome | { calls: BatchState } {
	const { config, format, tools, release } = context;
	const turn = readReply(response, config.max_output_tokens, format.rules);
	if (turn.reasoning) entry.reasoning = turn.reasoning;
	if (turn.kind === 'final')
		return answered(entry, turn.answer, response.text, format, config, release);
	release?.finishWithoutAnswer(
		turn.kind === 'error' ? 'the reply broke the protocol' : 'the reply was a tool call',
	);
	if (turn.kind === 'error') {
		entry.reply_excerpt = response.text.slice(0, REPLY_EXCERPT);
		if (response.finishReason === 'content_filter') {
			const why = response.finishMessage ? `: ${response.finishMessage}` : '';
			entry.error = {
				type: 'content_filter',
				message: `the provider withheld the reply (its safety filter)${why}`,
			};
			return { next: 'finish', reason: 'content_filter', detail: entry.error.message };
		}
		if (response.finishReason === 'length')
			return failedStep(
				entry,
				{ type: 'output_limit', message: turn.message },
				'max_output_tokens',
			);
		return failedStep(entry, { type: 'parse_error', message: turn.message }, 'parse_error');
	}
	const asked = turn.kind === 'actions' ? turn.calls : [{ tool: turn.tool, args: turn.args }];
	const calls = asked.map(({ tool, args }) => ({
		tool,
		args: callArgs(format, tools, tool, args),
	}));
	if (turn.kind === 'actions') return { calls: newBatch(calls) };
	entry.action = calls[0];
	return { calls: newBatch(calls, 'action') };
}
