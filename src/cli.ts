#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { runAgent } from './agent/run-agent';
import { RedisBudgetLedger } from './budget/redis-ledger';
import { createChatModel } from './providers/create-model';
import {
	type StreamChoice,
	UsageError,
	durableOptions,
	fallbackFromFlags,
	hasSharedBudget,
	integerFlags,
	providerFromFlags,
	readJsonFile,
	runOptionsFromFlags,
	streamChoice,
} from './cli/flags';
import { RUN_FLAGS } from './cli/run-flags';
import { resume } from './cli/resume-command';
import { HELP, USAGE } from './cli/usage';
import { auditCommand } from './cli/audit/audit-command';
import { evalCommand } from './cli/eval/eval-command';
import { errorReport } from './cli/error-lines';
import { runExtras } from './cli/run-extras';
import { sessionCommand } from './cli/session/session-command';
import { runInSession, sessionOptions } from './cli/session/session-run';
import { hasMcpServers, mcpPinOptions } from './cli/mcp-options';
import type { AgentResult } from './trace/types';

async function main(argv: string[]): Promise<number> {
	const [command, ...rest] = argv;
	if (
		command === 'help' ||
		command === '--help' ||
		command === '-h' ||
		((command === 'run' || command === 'resume' || command === 'session' || command === 'eval') &&
			(rest.includes('--help') || rest.includes('-h')))
	) {
		process.stdout.write(`${HELP}\n`);
		return 0;
	}
	if (command === 'audit') return auditCommand(rest);
	if (command === 'session') return sessionCommand(rest);
	if (command === 'eval') return evalCommand(rest);
	if (command !== 'run' && command !== 'resume')
		throw new UsageError(
			command ? `unknown command "${command}" (agent-core --help explains)\n${USAGE}` : USAGE,
		);
	let values: Record<string, string | undefined>;
	let stream: StreamChoice;
	let filePaths: string[] | undefined;
	try {
		const parsed: Record<string, string | boolean | string[] | undefined> = parseArgs({
			args: rest,
			options: RUN_FLAGS,
			strict: true,
			allowPositionals: false,
		}).values;
		stream = streamChoice(parsed.stream === true, parsed['stream-answer'] as string | undefined);
		filePaths = parsed.file as string[] | undefined;
		delete parsed.file;
		if (parsed.approve === true) parsed.approve = 'yes';
		delete parsed.stream;
		delete parsed['stream-answer'];
		values = parsed as Record<string, string | undefined>;
	} catch (error) {
		throw new UsageError(`${(error as Error).message}\n${USAGE}`);
	}

	const numbers = integerFlags(RUN_FLAGS, values);
	if (!values.config) throw new UsageError(`--config FILE is required\n${USAGE}`);
	const extras = runExtras(values, numbers['audit-retention-days'], filePaths);
	if (command === 'resume' && values['run-key'] !== undefined)
		throw new UsageError(
			'--run-key belongs to agent-core run: a resumed run continues from its --state',
		);
	if (command === 'resume') return resume(values, stream, extras);
	const onlyForResume = ['state', 'approve', 'deny', 'edit'].find(
		(flag) => values[flag] !== undefined,
	);
	if (onlyForResume) throw new UsageError(`--${onlyForResume} belongs to agent-core resume`);
	if (values.prompt === undefined && values['messages-json'] === undefined) {
		throw new UsageError(`give --prompt TEXT or --messages-json FILE\n${USAGE}`);
	}
	const primary = providerFromFlags(values, '');
	const fallback = fallbackFromFlags(values);

	const config = readJsonFile(values.config, '--config');
	const session = sessionOptions(
		values,
		config,
		hasSharedBudget(config) || values['run-key'] !== undefined || hasMcpServers(config),
	);
	const redisUrl = values['redis-url'] ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
	const budgetLedger = hasSharedBudget(config)
		? new RedisBudgetLedger({ connection: { url: redisUrl } })
		: undefined;
	const durable = durableOptions(values['run-key'], redisUrl);
	const mcp = mcpPinOptions(values['redis-url'], config);
	const messages =
		values['messages-json'] === undefined
			? undefined
			: readJsonFile(values['messages-json'], '--messages-json');
	const controller = new AbortController();
	process.once('SIGINT', () => controller.abort());
	const run = (input: { prompt?: string; messages?: unknown }) =>
		runAgent({
			model: createChatModel(primary),
			...(fallback ? { fallbackModel: createChatModel(fallback) } : {}),
			config: config as never,
			...input,
			...runOptionsFromFlags(values),
			sessionId: session?.sessionId,
			budgetLedger,
			...durable,
			...mcp,
			stateSecret: process.env.AGENT_CORE_STATE_SECRET,
			signal: controller.signal,
			...stream,
			...extras.options,
		});

	let output: AgentResult | undefined;
	try {
		output = await (
			session
				? runInSession({ ...session, redisUrl }, values.prompt!, run)
				: run({ prompt: values.prompt, messages })
		).finally(() =>
			Promise.all([budgetLedger?.close(), durable.checkpoints?.close(), mcp.mcpPins?.close()]),
		);
		// Streamed, the result is one more NDJSON line; otherwise it is printed for people to read.
		process.stdout.write(
			`${stream.onEvent ? JSON.stringify(output) : JSON.stringify(output, null, 2)}\n`,
		);
	} finally {
		await extras.finish(output);
	}
	return 0;
}

main(process.argv.slice(2)).then(
	(code) => {
		process.exitCode = code;
	},
	(error: unknown) => {
		const { text, code } = errorReport(error);
		process.stderr.write(text);
		process.exitCode = code;
	},
);
