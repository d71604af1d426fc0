// Files and images a run holds (issue #40): the door the rest of the engine goes through.
export { RunFile, hasBytes, type FileKind } from './run-file';
export { sniffType, type Sniffed } from './sniff';
export {
	acceptFiles,
	fileNameProblem,
	ACCEPTED_TYPES,
	MAX_FILE_NAME_LENGTH,
	type AcceptedFiles,
	type FileInput,
	type FileLimits,
} from './file-checks';
export { fileTokens } from './file-tokens';
export { measureFile, type FileMeasure } from './file-measure';
export { readFileBounded, readStreamBounded, type BoundedRead } from './bounded-read';
export { escapeControls } from './escape-controls';
