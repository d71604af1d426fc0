/** A file name or path as every message, trace, approval, audit row and event shows it (issue #48). */
import { escapeControls } from '../files';
import { Redactor } from './redact';

const SHAPES_ONLY = new Redactor();

/**
 * `name` (a file name, a path, a label naming one) as it may be shown anywhere: secrets redacted by the run's
 * redactor (the secret shapes alone when none is given), then control and bidirectional characters escaped
 * (`\n`, `\x1b`, `\u202e`), so no name ends a line, colours a terminal or shows reversed text.
 */
export function shownFileName(name: string, redactor: Redactor = SHAPES_ONLY): string {
	return escapeControls(redactor.text(name));
}
