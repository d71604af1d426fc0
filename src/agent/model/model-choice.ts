import type { ChatModel } from '../../providers/chat-model';
import type { StepError } from '../../trace/types';
import type { PricedModel } from './shared-budget';

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
