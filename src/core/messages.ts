/** The engine's neutral conversation: one message's shape, its roles, its check, parsing it from input, and the one cut of long text in it. */
import { InputError } from './input-error';

/** One tool call of a remembered turn and what it returned: redacted and cut by Agent Core before it is stored. */
export interface ToolResultMemory {
	/** The run's step that made the call (1, 2, …). */
	step: number;
	tool: string;
	args: Record<string, unknown>;
	observation: string;
	/** The error type or text when the call failed. */
	error?: string;
}

/** What a summary message stands for: written by Agent Core's compaction, stored by the context store. */
export interface SummaryMeta {
	/** The newest turn (by `seq`) the summary covers; every stored turn with a seq up to it was folded into it. */
	through_seq: number;
	/** How many turns the summary replaced (the earlier summary's included). */
	replaced_turns: number;
	/** The model that wrote it. */
	model: string;
	tokens_before: number;
	tokens_after: number;
	/** When it was written, ISO 8601. */
	at: string;
}

/** A file's facts as memory, traces, run states and audit rows keep them: never its bytes (see src/files). */
export interface FileRef {
	name: string;
	/** The MIME type read from the file's bytes. */
	type: string;
	/** Its size in bytes. */
	bytes: number;
	/** Lowercase hex SHA-256 of its bytes. */
	sha256: string;
}

/**
 * One message of the neutral conversation form shared by the engine, the context store and the providers.
 * Providers only ever read `role` and `content`; the optional fields are the context store's memory metadata.
 */
export interface ChatMessage {
	role: 'system' | 'user' | 'assistant';
	content: string;
	/** On the user message that opens a stored turn: the turn's number in its session (1, 2, …; never reused). */
	seq?: number;
	/** On an assistant answer: the turn's tool calls and what they returned, redacted and cut (by Agent Core). */
	tool_results?: ToolResultMemory[];
	/** On an assistant message whose content is a summary of older turns (written by Agent Core's compaction). */
	summary?: SummaryMeta;
	/**
	 * On a user message: the files sent with it. During the run that got them they are RunFiles holding their bytes
	 * (images and PDFs the providers send as parts); stored, they are references only, shown to later turns as a note.
	 */
	files?: FileRef[];
}

/**
 * Whether a message has a `files` key at all: one without has no file for a provider to send, so an adapter
 * sends it as it is without asking src/providers/file-parts which of its files go (issue #49).
 */
export const hasFilesKey = (message: ChatMessage): boolean => 'files' in message;

/** The roles of the neutral form; no other role is accepted anywhere. */
export const CHAT_ROLES: readonly ChatMessage['role'][] = ['system', 'user', 'assistant'];

const isCount = (value: unknown, least: number): value is number =>
	Number.isSafeInteger(value) && (value as number) >= least;
const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** The problem of one tool result at `path`, or undefined. */
function toolResultProblem(value: unknown, path: string): string | undefined {
	if (!isObject(value)) return `${path} must be an object with step, tool, args and observation`;
	if (!isCount(value.step, 0)) return `${path}.step must be a whole number ≥ 0`;
	if (typeof value.tool !== 'string') return `${path}.tool must be a string`;
	if (!isObject(value.args)) return `${path}.args must be an object`;
	if (typeof value.observation !== 'string') return `${path}.observation must be a string`;
	if (value.error !== undefined && typeof value.error !== 'string')
		return `${path}.error must be a string when present`;
	return undefined;
}

/** The problem of one file reference at `path`, or undefined. */
function fileRefProblem(value: unknown, path: string): string | undefined {
	if (!isObject(value)) return `${path} must be an object with name, type, bytes and sha256`;
	if (typeof value.name !== 'string' || value.name === '')
		return `${path}.name must be a non-empty string`;
	if (typeof value.type !== 'string' || !/^[\w.+-]+\/[\w.+-]+$/.test(value.type))
		return `${path}.type must be a MIME type such as image/png`;
	if (!isCount(value.bytes, 1)) return `${path}.bytes must be a whole number ≥ 1`;
	if (typeof value.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(value.sha256))
		return `${path}.sha256 must be 64 lowercase hex digits`;
	return undefined;
}

/** The problem of a summary's metadata at `path`, or undefined. */
function summaryProblem(value: unknown, path: string): string | undefined {
	if (!isObject(value))
		return `${path} must be an object with through_seq, replaced_turns, model, tokens_before, tokens_after and at`;
	if (!isCount(value.through_seq, 1))
		return `${path}.through_seq must be a whole number ≥ 1 (the newest turn the summary covers), but it was ${JSON.stringify(value.through_seq)?.slice(0, 40)}`;
	for (const field of ['replaced_turns', 'tokens_before', 'tokens_after'] as const) {
		if (!isCount(value[field], 0)) return `${path}.${field} must be a whole number ≥ 0`;
	}
	if (typeof value.model !== 'string') return `${path}.model must be a string`;
	if (typeof value.at !== 'string' || Number.isNaN(Date.parse(value.at)))
		return `${path}.at must be an ISO 8601 time`;
	return undefined;
}

/** The problem of the memory metadata of a message (seq, tool_results, summary), or undefined. */
function metadataProblem(message: Record<string, unknown>, path: string): string | undefined {
	const { role, seq, tool_results: toolResults, summary, files } = message;
	if (files !== undefined) {
		if (role !== 'user')
			return `${path}.files belongs on a user message, not on a ${String(role)} message`;
		if (!Array.isArray(files)) return `${path}.files must be a list of {name, type, bytes, sha256}`;
		for (const [index, file] of files.entries()) {
			const problem = fileRefProblem(file, `${path}.files[${index}]`);
			if (problem) return problem;
		}
	}
	if (seq !== undefined) {
		if (role !== 'user')
			return `${path}.seq belongs on the user message that opens a turn, not on a ${String(role)} message`;
		if (!isCount(seq, 1))
			return `${path}.seq must be a whole number ≥ 1, but it was ${JSON.stringify(seq)?.slice(0, 40)}`;
	}
	if (toolResults !== undefined) {
		if (role !== 'assistant')
			return `${path}.tool_results belongs on an assistant answer, not on a ${String(role)} message`;
		if (!Array.isArray(toolResults)) return `${path}.tool_results must be a list`;
		for (const [index, result] of toolResults.entries()) {
			const problem = toolResultProblem(result, `${path}.tool_results[${index}]`);
			if (problem) return problem;
		}
	}
	if (summary !== undefined) {
		if (role !== 'assistant')
			return `${path}.summary belongs on an assistant message, not on a ${String(role)} message`;
		return summaryProblem(summary, `${path}.summary`);
	}
	return undefined;
}

/**
 * The one check of a neutral message, shared by the run input and the context store: undefined when
 * `value` is a `{role, content}` message (with valid memory metadata, when it has any), else a sentence naming
 * `path` and the fix.
 */
export function chatMessageProblem(value: unknown, path: string): string | undefined {
	if (!isObject(value)) return `${path} must be an object with role and content`;
	const { role, content } = value;
	if (typeof role !== 'string' || !(CHAT_ROLES as readonly string[]).includes(role)) {
		return `${path}.role must be "system", "user" or "assistant", but it was ${JSON.stringify(role)?.slice(0, 60)}`;
	}
	if (typeof content !== 'string') return `${path}.content must be a string`;
	return metadataProblem(value, path);
}

/**
 * A checked message with only its known fields: role, content, and the memory metadata it carries (unknown
 * properties, there and inside tool results and the summary, are dropped).
 */
export function cleanMessage(message: ChatMessage): ChatMessage {
	const clean: ChatMessage = { role: message.role, content: message.content };
	if (message.seq !== undefined) clean.seq = message.seq;
	if (message.tool_results !== undefined) {
		clean.tool_results = message.tool_results.map(({ step, tool, args, observation, error }) => ({
			step,
			tool,
			args,
			observation,
			...(error === undefined ? {} : { error }),
		}));
	}
	if (message.files !== undefined)
		clean.files = message.files.map(({ name, type, bytes, sha256 }) => ({
			name,
			type,
			bytes,
			sha256,
		}));
	if (message.summary !== undefined) {
		const { through_seq, replaced_turns, model, tokens_before, tokens_after, at } = message.summary;
		clean.summary = { through_seq, replaced_turns, model, tokens_before, tokens_after, at };
	}
	return clean;
}

/** Checks a neutral conversation (an array, or JSON text of one, of {role, content}); errors name `field`. */
export function parseMessages(raw: unknown, field = 'messages_json'): ChatMessage[] {
	let value = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch (error) {
			throw new InputError(
				field,
				`${field} is not valid JSON (${(error as Error).message}); it must be an array of {role, content} objects`,
			);
		}
	}
	if (!Array.isArray(value)) {
		throw new InputError(
			field,
			`${field} must be an array of {role, content} objects, e.g. [{"role":"user","content":"Hi"}]`,
		);
	}
	return value.map((message, index) => {
		const problem = chatMessageProblem(message, `${field}[${index}]`);
		if (problem) throw new InputError(field, problem);
		return cleanMessage(message as ChatMessage);
	});
}

/**
 * Cuts text to `maxLength` characters with a visible marker saying how much was cut; 0 = no cut. The one cut of
 * long text: tool observations in a run, and stored messages when a session is trimmed to fit.
 */
export function truncateObservation(text: string, maxLength: number): string {
	if (maxLength <= 0 || text.length <= maxLength) return text;
	const cut = text.length - maxLength;
	return `${text.slice(0, maxLength)}… [cut ${cut} of ${text.length} characters]`;
}
