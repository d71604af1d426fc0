// Version 2's words that explain the panel (issue #41): the Governance label and hints, whole numbers without decimals.
import type { INodeProperties } from 'n8n-workflow';

/** The Governance switch's label names every section it shows (issue #41). */
export const GOVERNANCE_LABEL = 'Governance (Approval, Audit, Budgets, Durable Runs)';

/** One line under a Governance field that says what it is for, in the user's words (n8n shows `hint` below the field). */
export const GOVERNANCE_HINTS: Record<string, string> = {
	runState:
		"The paused run's run_state from the Needs Approval output, unchanged: it resumes the run once",
	durableRuns:
		'After a crash, the run goes on from its last completed step instead of starting over (Redis and Run State credentials)',
};

/**
 * The node's own whole-number fields (the settings table's show theirs so by their check, panel/settings.ts): version 2
 * shows them without decimals (issue #41). Version 1, whose entries these are copied from, is unchanged.
 */
const WHOLE_NUMBER_FIELDS = new Set([
	'auditRetentionDays',
	'batchSize',
	'delayBetweenBatches',
	'maxConcurrentCalls',
	'sharedBudgetPeriod',
	'sharedBudgetTokens',
]);

export function wholeNumbers(properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => {
		const options = property.options?.map((entry) =>
			'type' in entry ? wholeNumbers([entry as INodeProperties])[0] : entry,
		) as INodeProperties['options'];
		const whole = property.type === 'number' && WHOLE_NUMBER_FIELDS.has(property.name);
		return {
			...property,
			...(options ? { options } : {}),
			...(whole ? { typeOptions: { ...property.typeOptions, numberPrecision: 0 } } : {}),
		};
	});
}

/**
 * A field of days that takes fractions (Run State Max Age: 0.001 to 30) without fixed decimals: version 1's three made
 * the default read "7.000" (issue #48); without them n8n shows 7, and 0.5 as 0.5. Its bounds stay.
 */
export function withoutFixedDecimals(property: INodeProperties): INodeProperties {
	const typeOptions = { ...property.typeOptions };
	delete typeOptions.numberPrecision;
	return { ...property, typeOptions };
}

/** Version 2's one-line descriptions of the fields and choices version 1 left without one (issue #41). */
const FIELD_DESCRIPTIONS: Record<string, string> = {
	inputMode:
		'Where the request comes from: one prompt, or a whole conversation as Agent Context prepares it',
	fallbackSource: 'Where the fallback model comes from when the main one fails',
	runOrResume: 'Run the agent on each item, or resume a run that waited for approval',
	promptExamples: 'When the model is shown example replies in the JSON protocol',
	jsonMode:
		"How the provider's JSON output mode is used; the text protocol stays the contract either way",
	onLimitReached: 'What a run that stopped at a limit becomes: an item, or a node error',
	onModelError: 'What a failed model call becomes: a node error, or an item',
	workflowId: 'The sub-workflow this tool runs',
};

/** Descriptions of choices, by field name and value. */
const CHOICE_DESCRIPTIONS: Record<string, Record<string, string>> = {
	provider: {
		openai:
			'The OpenAI API or an endpoint that speaks it, with an Agent Core: OpenAI-Compatible API credential',
		gemini: "Google's Gemini API, with an Agent Core: Gemini API credential",
	},
	historyFit: { drop_oldest: 'Leave out whole turns, oldest first, until the history fits' },
	reasoningEffort: {
		minimal: 'Fewest reasoning tokens: fastest and cheapest',
		low: 'Little reasoning',
		medium: 'Some reasoning',
		high: 'Most reasoning: slowest, for hard tasks',
		'': "The model's own default",
	},
};

/** The panel with a description on every field and choice that had none; one already there stays. */
export function explained(properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => {
		const choices = CHOICE_DESCRIPTIONS[property.name] ?? {};
		const options = property.options?.map((entry) => {
			if ('type' in entry) return explained([entry as INodeProperties])[0];
			if ('values' in entry) return { ...entry, values: explained(entry.values) };
			if ('value' in entry && !entry.description && String(entry.value) in choices)
				return { ...entry, description: choices[String(entry.value)] };
			return entry;
		}) as INodeProperties['options'];
		const description = property.description ?? FIELD_DESCRIPTIONS[property.name];
		return {
			...property,
			...(description ? { description } : {}),
			...(options ? { options } : {}),
		};
	});
}
