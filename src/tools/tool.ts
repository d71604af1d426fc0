import type { JsonSchema } from '../validation/validate';
import type { FileInput } from '../files';

/** What the engine hands a tool for one call. */
export interface ToolContext {
	/** Aborted when the per-call timeout (`single_call_timeout`) or the whole-run timeout fires. */
	signal: AbortSignal;
	/** This tool's entry of `tool_settings`, already validated against `settingsSchema`. */
	settings: Record<string, unknown>;
	/** The conversation's session id when the run has one (used to scope per-session tools). */
	sessionId?: string;
	/**
	 * What the people behind the run wrote: the user's turns and the instructions, never a tool's output.
	 * A tool that must not be steered by observations (http_request with `egress_hosts: "from_prompt"`)
	 * checks its targets against it.
	 */
	trustedText?: string;
	/**
	 * In a durable run (one with a run key): a key for this call, the same every time this call is run again
	 * after the run was interrupted (see `passesIdempotencyKey`), different for every other call.
	 */
	idempotencyKey?: string;
}

/**
 * A whitelisted tool ("utool"). `parameters` is the JSON Schema of `args`; the engine validates args
 * against it before `execute` runs, so `execute` receives args of that shape.
 */
export interface Tool<Args = any> {
	name: string;
	/** One or two sentences for the model: what it does and when to use it. */
	description: string;
	parameters: JsonSchema;
	/** JSON Schema of this tool's `tool_settings` entry; checked when the run is configured. */
	settingsSchema?: JsonSchema;
	/**
	 * Rules across settings fields that a schema would state only cryptically; called after the schema
	 * check, returns `field: problem` lines (empty when the settings are fine).
	 */
	checkSettings?(settings: Record<string, unknown>): string[];
	/**
	 * Secret values in this tool's settings that a generic look at the settings would miss (the token in a
	 * webhook URL's path, say). The engine redacts them, in every spelling, everywhere the run writes; the
	 * tool itself never redacts. Header values and secret-named fields are found without it.
	 */
	secretsIn?(settings: Record<string, unknown>): string[];
	/**
	 * Whether a call with these (validated) args changes anything outside the run: a POST, a write, a message
	 * sent. Absent means yes. The loop breaker answers a repeated call without side effects from the earlier
	 * observation, and never runs a repeated call with side effects twice.
	 */
	sideEffects?: boolean | ((args: Args) => boolean);
	/**
	 * What a call with these (validated) args would send, as a JSON value: the loop breaker treats two calls
	 * whose forms are equal (as canonical JSON) as the same call. Absent: the args themselves, key order
	 * aside. A tool whose args can spell one effect several ways gives the effect as it leaves the machine,
	 * leaving out what never reaches the target (http_request: the request on the wire, without timeout_ms
	 * or the URL's fragment). It must agree with `execute`: two forms are equal only when the sends are.
	 */
	canonicalCall?(args: Args): unknown;
	/**
	 * Whether `execute` sends `ToolContext.idempotencyKey` to its target (http_request: the Idempotency-Key
	 * header), so that a target which honours it carries out a call that is sent again only once. A durable
	 * run sends again such a call that started but was never recorded as done; any other call with side
	 * effects it never runs twice on its own (see checkpoints.ts).
	 */
	passesIdempotencyKey?: boolean;
	/**
	 * This tool's own time limit for a call, from where it was configured (an MCP server's `timeout`): it replaces
	 * single_call_timeout for the tool, and a timeout error names `setting`. `tool_settings.<tool>.timeout` still
	 * wins over it.
	 */
	callTimeout?: { seconds: number; setting: string };
	/**
	 * Why a call with these (validated) args would be refused, from what is known without connecting or running
	 * (http_request: scheme, method, allowed_domains, egress_hosts, IP literals and names never allowed);
	 * undefined when nothing refuses it yet. A batch asks it of every call before any runs, so one refused call
	 * stops the batch before a call with side effects went out. `execute` still checks for itself.
	 */
	refusalBeforeRun?(
		args: Args,
		context: Pick<ToolContext, 'settings' | 'trustedText'>,
	): string | undefined;
	/**
	 * Runs the tool. A returned string is the observation as is, a `TruncatedText` is one the tool cut at
	 * its end, anything else is rendered as compact JSON. The engine redacts it, then cuts it to the run's
	 * observation length.
	 * Throwing (or rejecting) is a tool failure: the model sees the message and gets one repair turn.
	 */
	execute(args: Args, context: ToolContext): Promise<unknown>;
}

/**
 * Observation text that the tool itself cut at its end (a byte cap on a download, say). A known secret
 * the cut went through is no longer whole, so redaction would miss it: the engine also drops any end of
 * the text that begins a known secret.
 */
export class TruncatedText {
	constructor(readonly text: string) {}
}

/**
 * An observation with files (issue #40): an MCP tool's image, an http_request download of an image or a PDF, a
 * workflow's binary. `observation` is read as any result is (a string, a TruncatedText, or JSON); each file is
 * checked as the run's own files are (type from its bytes, names, sizes) and counts toward the run's
 * max_files and max_files_bytes. Those that pass, and that the run passes through (pass_images, pass_pdfs), go
 * to the model with the observation, inside its wrapper; any other is left out with a one-line note the model
 * reads in the observation instead. A tool names each file's source in `label` (e.g. "image 2 of the result").
 */
export class WithFiles {
	constructor(
		readonly observation: unknown,
		readonly files: readonly FileInput[],
	) {}
}
