// The settings of long memory (issue #31): rows of the settings table (settings.ts spreads them in), declared once here.
import * as check from './setting-checks';
import type { Setting } from './setting-types';

/** The context window assumed for a model the catalogue does not know, unless `context_window_tokens` says: small enough for nearly every chat model in use. */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 16_000;

export const MEMORY_SETTINGS = {
	/** How a history longer than its token budget is made to fit (see src/agent/memory.ts). */
	history_fit: {
		default: 'summarise' as const,
		check: check.oneOf(['summarise', 'drop_oldest', 'off'] as const),
		meaning:
			"a history (`messages`, or Agent Context's) over its token budget: `summarise` folds the oldest " +
			"turns into a summary written by the run's model (turns numbered by a context store; otherwise the " +
			'oldest are left out), `drop_oldest` leaves them out, `off` sends it as given (see *Long memory*)',
		panel: {
			collection: 'options',
			name: 'historyFit',
			displayName: 'History Over Budget',
			type: 'options',
			since: 2,
			choices: [
				{
					name: 'Summarise the Oldest Turns',
					value: 'summarise',
					description:
						"Fold them into a summary written by the run's model; Agent Context stores it and keeps the turns aside",
				},
				{ name: 'Leave Out the Oldest Turns', value: 'drop_oldest' },
				{
					name: 'Send It All',
					value: 'off',
					description: 'As before: the model may refuse a history longer than its context',
				},
			],
			description:
				"What happens when the conversation's history is over its token budget (half the model's context window, less the system message and the question)",
		},
	},
	/** The model's context window in tokens; 0 = the catalogue's figure for the model, else DEFAULT_CONTEXT_WINDOW_TOKENS. */
	context_window_tokens: {
		default: 0,
		check: check.integer(0, 10_000_000),
		meaning:
			`the model's context window in tokens, for the history's budget (half of it, less the system message ` +
			`and the question); 0 = the model catalogue's figure, or ${DEFAULT_CONTEXT_WINDOW_TOKENS} for a ` +
			`model it does not know`,
		panel: {
			collection: 'options',
			name: 'contextWindowTokens',
			displayName: 'Context Window (Tokens)',
			type: 'number',
			since: 2,
			description:
				"The model's context window; 0 = from the bundled model catalogue (16,000 for a model it does not know)",
		},
	},
	/** Turns that always stay verbatim when older ones are summarised. */
	keep_recent_turns: {
		default: 4,
		check: check.integer(0, 1_000),
		meaning: 'the newest turns a summary never replaces (while they fit the budget)',
		panel: {
			collection: 'options',
			name: 'keepRecentTurns',
			displayName: 'Keep Recent Turns',
			type: 'number',
			since: 2,
			description: 'The newest turns that always stay word for word when older ones are summarised',
		},
	},
} satisfies Record<string, Setting>;
