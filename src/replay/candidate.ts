// What a counterfactual replay is asked of: the candidate model or config, and the names of its options.
import { checkKnownOptions, type OptionNames } from '../core/known-options';
import type { FileInput } from '../files';
import type { ChatModel } from '../providers/chat-model';
import type { Tool } from '../tools/tool';
import type { RecordTrustOptions } from './record-trust';

/** What the candidate is: its model (and fallback), the config it runs with instead of the recorded one, and `unverified` (see replayRecord). */
export interface Candidate extends RecordTrustOptions {
	model: ChatModel;
	fallbackModel?: ChatModel;
	/** The candidate's config (e.g. `--with-config`); absent: the recorded config. Its `tool_settings` reach only tools that really run. */
	config?: Record<string, unknown>;
	/** The model id asked for (`--model`); absent: the config's `model`. */
	modelName?: string;
	/** Run read-only calls the record does not have (`--run-read-only`); without it they are refused like calls with side effects. */
	runReadOnly?: boolean;
	/** Real tools beyond the built-ins a read-only call may reach. */
	tools?: readonly Tool[];
	/** Values never to appear in the report (the candidate's API key). */
	secrets?: readonly string[];
	signal?: AbortSignal;
	/** The files the audited run was given, again (its row keeps their references): matched by SHA-256. */
	files?: readonly FileInput[];
}

/** counterfactualReplay's option names; `satisfies` keeps them and Candidate from drifting apart. */
const CANDIDATE_OPTIONS = {
	model: true,
	fallbackModel: true,
	config: true,
	modelName: true,
	runReadOnly: true,
	tools: true,
	secrets: true,
	signal: true,
	files: true,
	unverified: true,
} satisfies OptionNames<Candidate>;

/** Refuses a candidate with an option counterfactualReplay does not know (`modelname`, `runReadonly`), naming it. */
export function checkCandidate(candidate: unknown): void {
	checkKnownOptions('counterfactualReplay', candidate, CANDIDATE_OPTIONS);
}
