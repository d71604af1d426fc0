// The settings of the model call (model, temperature, reply cap, reasoning effort): rows of the settings
// table (settings.ts spreads them in), declared once here.
import type { ReasoningEffort } from '../providers/chat-model';
import * as check from './setting-checks';
import type { Setting } from './setting-types';

/** The values `reasoning_effort` takes. */
export const REASONING_EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];

export const MODEL_SETTINGS = {
	/** Model id as the provider names it. */
	model: {
		required: true,
		check: check.nonEmptyString('the model id'),
		meaning: 'model ID as the provider names it',
		panel: {
			collection: 'top',
			name: 'model',
			displayName: 'Model',
			type: 'resourceLocator',
			builtByNode: true,
		},
	},
	/** Sent only when set; absent = the model's own default (GPT-5 and o-series models refuse any other). */
	temperature: {
		check: check.decimal(0, 2),
		meaning:
			"0–2; sent only when set, otherwise the model's own default applies. GPT-5 and o-series models " +
			'accept only their default: when an endpoint refuses a set temperature (HTTP 400 naming it), the ' +
			"call is retried once without it and the step's `notices` say so",
		panel: {
			collection: 'options',
			name: 'temperature',
			displayName: 'Temperature',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 2, numberPrecision: 2 },
			default: 0.2,
			description:
				"Sent only when this option is added; without it the model's own default applies. GPT-5 and o-series " +
				'models accept only their default: a refused temperature is dropped and the call retried, noted in ' +
				'the trace.',
		},
	},
	/** Cap on each reply's tokens (OpenAI `max_completion_tokens`, Gemini `maxOutputTokens`); absent = the provider's default. */
	max_output_tokens: {
		check: check.integer(1, 10_000_000),
		meaning:
			"cap on each reply's tokens, reasoning included (OpenAI `max_completion_tokens`, never the refused `max_tokens`; Gemini `maxOutputTokens`)",
		panel: {
			collection: 'options',
			name: 'maxOutputTokens',
			displayName: 'Max Output Tokens',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			unsetValue: 0,
			description:
				"Cap on each reply's tokens, reasoning included (OpenAI max_completion_tokens, Gemini maxOutputTokens); 0 = the provider's default",
		},
	},
	/** How hard a reasoning model thinks (OpenAI `reasoning_effort`, Gemini thinking budget); absent = the model's default. */
	reasoning_effort: {
		check: check.oneOf(REASONING_EFFORTS, 'one of'),
		meaning:
			'`minimal`, `low`, `medium` or `high`: OpenAI `reasoning_effort`; Gemini a thinking budget of 0 / 1,024 / 8,192 / 24,576 tokens',
		panel: {
			collection: 'options',
			name: 'reasoningEffort',
			displayName: 'Reasoning Effort',
			type: 'options',
			choices: [
				...REASONING_EFFORTS.map((effort) => ({
					name: effort.charAt(0).toUpperCase() + effort.slice(1),
					value: effort,
				})),
				{ name: "Model's Default", value: '' },
			].sort((first, second) => first.name.localeCompare(second.name)),
			default: '',
			unsetValue: '',
			description:
				'How hard a reasoning model thinks (OpenAI reasoning_effort; Gemini: a thinking budget)',
		},
	},
} satisfies Record<string, Setting>;
