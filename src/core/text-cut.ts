// Cutting long text with a visible marker: tool observations in a run, and stored messages when a session is trimmed to fit.
/** Cuts text to `maxLength` characters with a visible marker saying how much was cut; 0 = no cut. */
export function truncateObservation(text: string, maxLength: number): string {
	if (maxLength <= 0 || text.length <= maxLength) return text;
	const cut = text.length - maxLength;
	return `${text.slice(0, maxLength)}… [cut ${cut} of ${text.length} characters]`;
}
