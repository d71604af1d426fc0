// A run's model calls: which model answers (the primary, then the fallback once a call of its failed), and one call under its limits.
import type { ChatMessage } from '../../core/messages';
import type { ChatModel, ChatResponse, ResponseFormat } from '../../providers/chat-model';
import type { PricedModel } from './shared-budget';
import { type TokenUsage, sanitiseUsage } from '../../core/usage';
import type { StepError, TraceStep } from '../../trace/types';
import type { AnswerRelease } from './answer/answer-release';
import type { AgentConfig } from '../../settings/config';
import { callLimit, describeAbort } from '../base/run-clock';

/** A chat model with the model id it is asked for. */
export interface Answering {
	chat: ChatModel;
	name: string;
}

/**
 * Which model answers a run's calls: the primary until one of its calls fails after its retries or times
 * out, then the fallback, once, for the rest of the run. The conversation is plain text, so the fallback
 * continues it as it is: there are no tool-call ids to translate.
 */
export class ModelChoice {
	answering: Answering;
	private fallback?: Answering;

	/** A model's own `modelName`, or else `config.model`, is the model id it is asked for. */
	constructor(primary: ChatModel, fallback: ChatModel | undefined, configModel: string) {
		this.answering = { chat: primary, name: primary.modelName ?? configModel };
		if (fallback) this.fallback = { chat: fallback, name: fallback.modelName ?? configModel };
	}

	/** The models that may answer, as a cost limit checks their prices before the first call. */
	get candidates(): PricedModel[] {
		return [this.answering, ...(this.fallback ? [this.fallback] : [])].map(({ chat, name }) => ({
			name,
			provider: chat.provider,
		}));
	}

	/** The values both models hold that no output may show (their API keys). */
	get secrets(): string[] {
		return [...(this.answering.chat.secrets ?? []), ...(this.fallback?.chat.secrets ?? [])];
	}

	/** After a failed call: hands the run to the fallback and returns the step's notice; undefined when none is left. */
	failOver(error: StepError): string | undefined {
		const failed = this.answering;
		if (!this.fallback) return undefined;
		this.answering = this.fallback;
		this.fallback = undefined;
		return (
			`${failed.chat.provider} ${failed.name} failed (${error.message}); the fallback ` +
			`${this.answering.chat.provider} ${this.answering.name} answers from this step on`
		);
	}
}

/** What one model call came to; `runAborted` says the whole run was stopped while it ran. */
export type ModelCallOutcome =
	| { ok: true; response: ChatResponse; usage: TokenUsage; elapsedMs: number }
	| { ok: false; error: StepError; elapsedMs: number; runAborted: boolean };

export interface ModelCallRequest {
	model: ChatModel;
	/** The model id asked for. */
	modelName: string;
	config: AgentConfig;
	/** The run's response format (see protocolFormat). */
	format: ResponseFormat;
	messages: ChatMessage[];
	runSignal: AbortSignal;
	/** Where the reply's answer text goes as it streams; without it the call does not stream. */
	release?: AnswerRelease;
}

/**
 * One model call under `single_call_timeout` and the run's signal, with the run's settings; failures come
 * back as outcomes, never thrown: a `timeout` error when the call's own time ran out, `llm_error` (with
 * the HTTP status when there was one) for anything the provider or the connection did.
 */
export async function callModel(request: ModelCallRequest): Promise<ModelCallOutcome> {
	const { config, release } = request;
	const call = callLimit(request.runSignal, config.single_call_timeout);
	const started = performance.now();
	const elapsed = () => performance.now() - started;
	try {
		const work = request.model.generate({
			model: request.modelName,
			messages: request.messages,
			temperature: config.temperature,
			maxOutputTokens: config.max_output_tokens,
			reasoningEffort: config.reasoning_effort,
			responseFormat: request.format,
			signal: call.signal,
			deadline: Date.now() + config.single_call_timeout * 1000,
			...(release
				? {
						onTextDelta: (piece: string) => release.text(piece),
						onTextReset: () => release.reset('the model call was retried'),
					}
				: {}),
		});
		const response = await call.race(work);
		return { ok: true, response, usage: sanitiseUsage(response.usage), elapsedMs: elapsed() };
	} catch (error) {
		release?.finishWithoutAnswer('the model call failed');
		if (request.runSignal.aborted) {
			return {
				ok: false,
				runAborted: true,
				elapsedMs: elapsed(),
				error: { type: 'timeout', message: describeAbort(request.runSignal.reason) },
			};
		}
		if (call.timedOut()) {
			return {
				ok: false,
				runAborted: false,
				elapsedMs: elapsed(),
				error: { type: 'timeout', message: `model call: ${describeAbort(call.signal.reason)}` },
			};
		}
		const message = error instanceof Error ? error.message : String(error);
		// openai-node's APIError and @google/genai's ApiError both carry the HTTP status as `status`.
		const status = (error as { status?: unknown } | null)?.status;
		const failure: StepError = {
			type: 'llm_error',
			message: `model call failed: ${message}`,
			...(typeof status === 'number' ? { status } : {}),
		};
		return { ok: false, runAborted: false, elapsedMs: elapsed(), error: failure };
	} finally {
		call.dispose();
	}
}

/**
 * A step's model call. One that failed after its retries, or timed out, hands the run to the fallback model,
 * when there is one: it answers this same step, and every later one. The entry records who answered and
 * carries the failover's notice; `release` makes each attempt's answer stream (or none).
 */
export async function callWithFailover(
	models: ModelChoice,
	entry: TraceStep,
	release: () => AnswerRelease | undefined,
	request: Omit<ModelCallRequest, 'model' | 'modelName' | 'release'>,
): Promise<{ call: ModelCallOutcome; release?: AnswerRelease }> {
	let elapsedMs = 0;
	for (;;) {
		const attempt = release();
		const { chat, name } = models.answering;
		Object.assign(entry, { provider: chat.provider, model: name });
		const call = await callModel({ ...request, model: chat, modelName: name, release: attempt });
		elapsedMs += call.elapsedMs;
		const notice = call.ok || call.runAborted ? undefined : models.failOver(call.error);
		if (!notice) return { call: { ...call, elapsedMs }, release: attempt };
		(entry.notices ??= []).push(notice);
	}
}
