// What a model's reply asks of the loop: the final answer (checked), a repair, the end of the run, or the calls to run.
import type { AgentConfig } from '../../settings/config';
import type { Tool } from '../../tools/tool';
import type { FinishReason, StepError, TraceStep } from '../../trace/types';
import type { RunLedger } from '../base/run-ledger';
import type { RepairReason } from '../base/failure-streak';
import { repairMessage, type PromptExamples } from '../protocol/prompt';
import type { ChatResponse } from '../../providers/chat-model';
import type { AnswerRelease } from './answer/answer-release';
import type { ToolCallRequest } from '../protocol/actions-turn';
import { readReply } from '../protocol/protocol';
import { callArgs, type ProtocolFormat } from '../protocol/protocol-schema';
import { failedStep, REPLY_EXCERPT, type StepOutcome } from '../base/step-outcome';
import { checkAnswer } from '../protocol/typed-answer';
import { withoutNullOptionals } from '../protocol/protocol-schema';

/**
 * The step's outcome when the reply answers or breaks the protocol; a plan (plan mode) as read; otherwise the
 * calls it asks for — one action in the `action` form — with their args as the protocol's schema sent them (see callArgs). An answer on
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
): StepOutcome | { calls: ToolCallRequest[]; form?: 'action' } | { planned: unknown } {
	const { config, format, tools, release } = context;
	const turn = readReply(response, config.max_output_tokens, format.rules);
	if (turn.reasoning) entry.reasoning = turn.reasoning;
	if (turn.kind === 'final')
		return answered(entry, turn.answer, response.text, format, config, release);
	release?.finishWithoutAnswer(
		turn.kind === 'error'
			? 'the reply broke the protocol'
			: turn.kind === 'plan'
				? 'the reply was a plan'
				: 'the reply was a tool call',
	);
	// Plan mode (issue #51): the plan room reads and checks it.
	if (turn.kind === 'plan') return { planned: turn.value };
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
	if (turn.kind === 'actions') return { calls };
	entry.action = calls[0];
	return { calls, form: 'action' };
}

/** A final reply, its answer checked against `output_schema` when the run has one: the run's answer, or a failed step (repair). */
function answered(
	entry: TraceStep,
	answer: unknown,
	reply: string,
	format: ProtocolFormat,
	config: Pick<AgentConfig, 'output_schema'>,
	release?: AnswerRelease,
): StepOutcome {
	const schema = config.output_schema;
	// Without output_schema the answer is the reply's text: typed answers are not asked (issue #49).
	const checked = schema
		? checkAnswer(withoutNullOptionals(answer, schema, format), schema)
		: { ok: true as const, text: answer as string };
	if (!checked.ok) {
		release?.finishWithoutAnswer('the answer did not match output_schema');
		entry.reply_excerpt = reply.slice(0, REPLY_EXCERPT);
		return failedStep(
			entry,
			{ type: 'output_invalid', message: checked.message },
			'output_invalid',
		);
	}
	release?.finishWithAnswer(checked.text);
	entry.final = { answer: checked.value ?? checked.text };
	return { next: 'finish', reason: 'final', answer: checked };
}

/** After a failed step the model sees the error and gets one repair turn, unless the failure streak ends the run. */
export function repairOrEnd(
	ledger: Pick<RunLedger, 'failures' | 'conversation'>,
	failed: { error: StepError; reason: RepairReason },
	examples: PromptExamples,
): { reason: FinishReason; detail: string } | undefined {
	const { error, reason } = failed;
	const ended = ledger.failures.fail(error, reason);
	if (!ended)
		ledger.conversation.push({
			role: 'user',
			content: repairMessage(error.message, reason !== 'tool_error', examples),
		});
	return ended;
}
