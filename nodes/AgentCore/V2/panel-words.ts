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
 * The node's own whole-number fields (the settings table's show theirs so by their check, settings-panel.ts): version 2
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
