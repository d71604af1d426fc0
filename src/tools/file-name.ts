// A file name a tool gives to a file it returns (issue #40): the last segment of a URL path or resource URI, made plain.
import { MAX_FILE_NAME_LENGTH, fileNameProblem } from '../files';

/**
 * The last segment of `path` (a URL's path or a URI), percent-decoded where that is valid, with control characters,
 * slashes and backslashes dropped and its length capped; `fallback` when nothing usable is left. The engine still
 * checks the name as it checks every file's (fileNameProblem); this only keeps an honest server's name.
 */
export function fileNameFrom(path: string, fallback: string): string {
	const segment = path.split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? '';
	let decoded = segment;
	try {
		decoded = decodeURIComponent(segment);
	} catch {
		// Not valid percent-encoding: the segment as it is.
	}
	const plain = decoded
		.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029/\\]/g, '')
		.trim()
		.slice(0, MAX_FILE_NAME_LENGTH);
	return plain === '' || fileNameProblem(plain) !== undefined ? fallback : plain;
}
