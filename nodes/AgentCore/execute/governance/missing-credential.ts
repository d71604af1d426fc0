// What a run says when a use needs the Redis or Run State credential and none is selected, in the words of the
// panel's picker.

/** The credential types, as n8n names them in a picker's list. */
const TYPE_NAMES = {
	redis: 'Agent Core: Redis API',
	runState: 'Agent Core: Run State API',
} as const;

export type OptionalCredential = keyof typeof TYPE_NAMES;

/**
 * A node version's picker for an optional credential: its label when the version labels it (version 2,
 * V2/credential-labels.ts) and the switch that shows it; version 1's pickers have neither.
 */
export interface CredentialPicker {
	readonly label?: string;
	readonly shownBy?: string;
}

/** The error and its fix when `user` needs the `credential` and its picker is empty; `why` ends the fix. */
export function missingCredential(
	credential: OptionalCredential,
	user: string,
	picker: CredentialPicker,
	why = '',
): { message: string; fix: string } {
	const type = TYPE_NAMES[credential];
	if (picker.label === undefined)
		return {
			message: `${user} needs the ${type} credential, and none is selected`,
			fix: `Select an "${type}" credential on the node${why}.`,
		};
	const where = picker.shownBy === undefined ? '' : ` (under ${picker.shownBy})`;
	const turnOn = picker.shownBy === undefined ? 'Select' : `Turn on ${picker.shownBy} and select`;
	return {
		message: `${user} needs a credential in "${picker.label}"${where}, and none is selected`,
		fix: `${turnOn} an "${type}" credential in "${picker.label}"${why}.`,
	};
}
