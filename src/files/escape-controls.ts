/**
 * Control and bidirectional characters of a file name or path, escaped (issue #48): a name is shown in errors,
 * traces, approvals, the audit and events, and must not end a line, colour a terminal or reverse the text an
 * approver reads. Only shownFileName (src/trace/shown-file-name.ts, which also redacts) should call this.
 */

/**
 * C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional formatting characters
 * (Unicode TR #9: ALM, LRM, RLM, the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069).
 */
export const CONTROL_OR_BIDI =
	/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with each control or bidirectional character written as an escape: `\n`, `\x1b`, `\u202e`. */
export function escapeControls(text: string): string {
	return text.replace(CONTROL_OR_BIDI, (char) => {
		const code = char.charCodeAt(0);
		return (
			NAMED[char] ??
			(code <= 0xff
				? `\\x${code.toString(16).padStart(2, '0')}`
				: `\\u${code.toString(16).padStart(4, '0')}`)
		);
	});
}
