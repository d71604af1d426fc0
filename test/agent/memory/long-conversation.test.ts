// Issue #31: a 500-turn conversation through the CLI's session path and through Agent Context → Agent Core → Agent Context (version 2, on Redis) in n8n's engine.
import type { IDataObject } from 'n8n-workflow';
import { AgentContext } from '../../../nodes/AgentContext/AgentContext.node';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { messagesTokens } from '../../../src/agent/memory/memory';
import { readObservation } from '../../../src/agent/protocol/prompt';
import type { ScriptedRequest } from '../../../src/demo/scripted-server';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../../../src/agent/run-agent';
import { runInSession } from '../../../src/cli/session/session-run';
import { final, modelFor, useScriptedServer } from '../../support/agent';
import { runCli } from '../../support/cli';
import { runWorkflow } from '../../support/n8n-engine';
import { redisCredentialData, useTestRedis } from '../../support/redis';
import { connectInSequence, createInputNode, createNode } from '../../support/test-nodes';

const TURNS = 500;
const CONTEXT_WINDOW = 2_000;
const FACT = 'My name is Ada Lovelace and my order number is 4711.';
const questionOf = (turn: number) =>
	turn === 1
		? FACT
		: `Question ${turn}: what does the engine compute next, and how fast does it go?`;
const isSummaryCall = (request: ScriptedRequest) =>
	request.messages[0].content.startsWith('You keep the memory of a conversation');

/** The last request's summary, as the model read it (inside the wrapper, before the first kept question), and the questions sent word for word. */
function lastRequest(requests: ScriptedRequest[]) {
	const request = requests[requests.length - 1];
	const summary = readObservation(request.messages[1].content.split('\n\n')[0]);
	const questions = [...JSON.stringify(request.messages).matchAll(/Question (\d+):/g)].map(
		(match) => Number(match[1]),
	);
	return {
		request,
		summary,
		questions,
		through: Number(/turns 1–(\d+)/.exec(summary?.text ?? '')?.[1]),
	};
}

describe('a 500-turn conversation (issue #31)', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	/** A model that summarises honestly (it states only what the transcript holds) and answers each question. */
	const honestModel = () =>
		server().setScript((request) => {
			if (isSummaryCall(request)) {
				const transcript = readObservation(request.messages[1].content)?.text ?? '';
				const facts = [
					/Ada Lovelace/.test(transcript) ? 'the user is Ada Lovelace' : '',
					/4711/.test(transcript) ? 'their order is 4711' : '',
				].filter(Boolean);
				return final(`Facts so far: ${facts.join(', ') || 'none'}.`);
			}
			return final(`Answer: the engine goes on computing (${request.callIndex}).`);
		});

	it("through the CLI's session path (turns 1–497 in this process, 498–500 as agent-core processes): within the window, the fact only in the summary", async () => {
		honestModel();
		const session = `cli-long-${Date.now()}`;
		const config = { model: 'house-model', context_window_tokens: CONTEXT_WINDOW };
		const sessionOptions = {
			sessionId: session,
			context: 'redis' as const,
			redisUrl: redis.url,
			window: 'all' as const,
			busy: 'reject' as const,
			busyTtlSeconds: 300,
		};
		let compactions = 0;
		for (let index = 1; index <= TURNS - 3; index++) {
			const result = await runInSession(sessionOptions, questionOf(index), ({ messages }) =>
				runAgent({ model: modelFor(server()), config, messages }),
			);
			expect(result).toMatchObject({ finish_reason: 'final' });
			compactions += result.trace.filter((entry) => entry.compaction).length;
		}
		const folder = mkdtempSync(join(tmpdir(), 'agent-core-long-'));
		try {
			writeFileSync(join(folder, 'config.json'), JSON.stringify(config));
			for (let index = TURNS - 2; index <= TURNS; index++) {
				const run = await runCli([
					'run',
					'--config',
					join(folder, 'config.json'),
					'--prompt',
					questionOf(index),
					'--base-url',
					server().openaiBaseUrl,
					'--api-key',
					'k',
					'--session',
					session,
					'--redis-url',
					redis.url,
				]);
				expect(run).toMatchObject({ code: 0, stderr: '' });
				compactions += (JSON.parse(run.stdout).trace as Array<{ compaction?: unknown }>).filter(
					(entry) => entry.compaction,
				).length;
			}
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
		for (const request of server().requests)
			expect(messagesTokens(request.messages)).toBeLessThanOrEqual(CONTEXT_WINDOW);
		expect(server().requests.filter(isSummaryCall)).toHaveLength(compactions);
		const { request, summary, questions, through } = lastRequest(server().requests);
		expect(isSummaryCall(request)).toBe(false);
		expect(JSON.stringify(request.messages)).not.toContain(FACT);
		expect(summary?.text).toMatch(
			/^Summary of the earlier conversation \(turns 1–\d+ of this conversation\):\nFacts so far: the user is Ada Lovelace, their order is 4711\.$/,
		);
		expect(questions.length).toBeGreaterThan(0);
		expect(questions.every((number) => number > through)).toBe(true);
		console.log(
			`CLI, 500 turns: ${compactions} summary calls, ${server().requests.length} model requests`,
		);
	}, 600_000);

	it('through Agent Context → Agent Core → Agent Context (version 2, Redis) in n8n’s engine: within the window, the fact only in the summary, the replaced turns kept', async () => {
		const session = `long-${Date.now()}`;
		honestModel();
		const credentials = { agentCoreRedisApi: { id: '3', name: 'Redis' } };
		const context = (name: string, operation: string) =>
			createNode({
				name,
				type: 'agentContext',
				typeVersion: 2,
				parameters: { operation, storage: 'redis', options: {} },
				settings: { credentials },
			});
		const turn = (prompt: string) =>
			runWorkflow({
				nodes: [
					createInputNode([{ session_id: session, prompt }]),
					context('Prepare', 'prepare'),
					createNode({
						name: 'Agent Core',
						type: 'agentCore',
						typeVersion: 2,
						parameters: {
							provider: 'openai',
							model: { __rl: true, mode: 'id', value: 'house-model' },
							inputMode: 'messages',
							options: { contextWindowTokens: CONTEXT_WINDOW },
						},
						settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
					}),
					context('Persist', 'persist'),
				],
				connections: connectInSequence('Input', 'Prepare', 'Agent Core', 'Persist'),
				nodeTypes: { agentCore: new AgentCore(), agentContext: new AgentContext() },
				credentials: {
					agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
					agentCoreRedisApi: redisCredentialData(redis.url),
				},
			});

		let compactions = 0;
		let last: IDataObject = {};
		for (let index = 1; index <= TURNS; index++) {
			const before = server().requests.length;
			const result = await turn(questionOf(index));
			const error =
				result.errorOf('Persist') ?? result.errorOf('Agent Core') ?? result.errorOf('Prepare');
			if (error) throw new Error(`turn ${index}: ${error.message}`);
			last = result.outputOf('Persist')[0].json;
			expect(last).toMatchObject({ finish_reason: 'final', context: { stored: true } });
			const trace = last.trace as Array<{ step: number; compaction?: unknown }>;
			const named = trace.filter((entry) => entry.compaction).length;
			// Each summary call is in the trace, and the server saw exactly the run's calls.
			expect(server().requests.slice(before).filter(isSummaryCall)).toHaveLength(named);
			compactions += named;
			for (const request of server().requests.slice(before))
				expect(messagesTokens(request.messages)).toBeLessThanOrEqual(CONTEXT_WINDOW);
		}

		const finalRequest = server().requests[server().requests.length - 1];
		const sent = JSON.stringify(finalRequest.messages);
		expect(isSummaryCall(finalRequest)).toBe(false);
		expect(sent).not.toContain(FACT);
		const summary = readObservation(finalRequest.messages[1].content.split('\n\n')[0]);
		expect(summary?.tool).toBe('memory');
		expect(summary?.text).toMatch(
			/^Summary of the earlier conversation \(turns 1–\d+ of this conversation\):\nFacts so far: the user is Ada Lovelace, their order is 4711\.$/,
		);
		expect(compactions).toBeGreaterThan(10);
		// None of the replaced turns word for word: only questions after the summary's last turn are in the request.
		const through = Number(/turns 1–(\d+)/.exec(summary!.text)?.[1]);
		const questions = [...sent.matchAll(/Question (\d+):/g)].map((match) => Number(match[1]));
		expect(questions.length).toBeGreaterThan(0);
		expect(questions.every((number) => number > through)).toBe(true);

		// The replaced turns are kept (the archive): List shows them summarised, and a fork at turn 1 reads turn 1 back word for word.
		const operation = (parameters: IDataObject, item: IDataObject = { session_id: session }) =>
			runWorkflow({
				nodes: [
					createInputNode([item]),
					createNode({
						name: 'Context',
						type: 'agentContext',
						typeVersion: 2,
						parameters: { storage: 'redis', options: {}, ...parameters },
						settings: { credentials },
					}),
				],
				connections: connectInSequence('Input', 'Context'),
				nodeTypes: { agentContext: new AgentContext() },
				credentials: { agentCoreRedisApi: redisCredentialData(redis.url) },
			}).then((result) => result.outputOf('Context')[0].json);
		const listed = (await operation({ operation: 'list' })).turns as Array<{
			seq: number;
			state: string;
		}>;
		expect(listed).toHaveLength(TURNS);
		expect(listed.filter((entry) => entry.state === 'summarised').length).toBeGreaterThan(
			TURNS - 10,
		);
		await operation({ operation: 'fork', toSessionId: `${session}-turn-1`, turn: 1 });
		const forked = (await operation({ operation: 'get' }, { session_id: `${session}-turn-1` }))
			.turns as Array<{ messages: Array<{ content: string }> }>;
		expect(forked.map((entry) => entry.messages[0].content)).toEqual([FACT]);
		console.log(
			`500 turns: ${compactions} summary calls, ${server().requests.length} model requests, the last summary covers ${/turns 1–(\d+)/.exec(summary!.text)?.[1]} turns`,
		);
	}, 600_000);
});
