import type { AgentEvent } from '../../../src/agent/base/events';
import { runAgent } from '../../../src/agent/run-agent';
import type {
	ChatModel,
	ChatRequest,
	ChatResponse,
	ModelFinishReason,
} from '../../../src/providers/chat-model';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';

/**
 * A model that streams each scripted reply in the given pieces through the contract's onTextDelta, as a
 * streaming adapter does; `reset` plays an attempt that failed after some pieces and was retried.
 */
interface PiecedReply {
	pieces: string[];
	finishReason?: ModelFinishReason;
	/** Pieces of an attempt sent before onTextReset, as when a stream breaks and the adapter retries. */
	failedAttempt?: string[];
}

function piecedModel(replies: PiecedReply[], options: { secrets?: string[] } = {}) {
	const requests: ChatRequest[] = [];
	const model: ChatModel = {
		provider: 'pieces',
		secrets: options.secrets,
		async generate(request: ChatRequest): Promise<ChatResponse> {
			const reply = replies[requests.length];
			requests.push(request);
			if (!reply) throw new Error(`no reply scripted for call ${requests.length}`);
			if (reply.failedAttempt) {
				for (const piece of reply.failedAttempt) request.onTextDelta?.(piece);
				request.onTextReset?.();
			}
			for (const piece of reply.pieces) {
				request.onTextDelta?.(piece);
				// Let other work run between pieces, as network reads do.
				await new Promise((resolve) => setImmediate(resolve));
			}
			return {
				text: reply.pieces.join(''),
				usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
				finishReason: reply.finishReason ?? 'stop',
			};
		},
	};
	return { model, requests };
}

/** Splits text into pieces of `size` characters, the way a stream delivers a reply. */
function inPieces(text: string, size: number): string[] {
	const pieces: string[] = [];
	for (let index = 0; index < text.length; index += size)
		pieces.push(text.slice(index, index + size));
	return pieces;
}

async function runWithEvents(
	model: ChatModel,
	config: Record<string, unknown> = {},
	secrets?: string[],
) {
	const events: AgentEvent[] = [];
	const result = await runAgent({
		model,
		config: { model: 'm', max_steps: 4, ...config },
		prompt: 'q',
		secrets,
		onEvent: (event) => events.push(event),
	});
	return { result, events };
}

const answerText = (events: AgentEvent[]) =>
	events.flatMap((event) => (event.type === 'answer_delta' ? [event.text] : [])).join('');
const typesOf = (events: AgentEvent[]) =>
	events
		.map((event) => event.type)
		.filter((type, index, all) => type !== 'answer_delta' || all[index - 1] !== 'answer_delta');

const LONG_ANSWER =
	'The first line of a long answer.\nIt goes on, word after word, long enough to stream in several pieces before the reply ends.';

describe('runAgent with onEvent: the run streams as it happens', () => {
	it('reports the steps in order: step, action, observation, next step, answer pieces, done', async () => {
		const { model } = piecedModel([
			{
				pieces: inPieces(
					action('json_transform', { data: { items: [1, 2, 3] }, expression: 'length(items)' }),
					7,
				),
			},
			{ pieces: inPieces(final(LONG_ANSWER), 5) },
		]);
		const { result, events } = await runWithEvents(model, { allowed_tools: ['json_transform'] });
		expect(result.finish_reason).toBe('final');
		expect(typesOf(events)).toEqual([
			'step_start',
			'action',
			'observation',
			'step_start',
			'answer_delta',
			'done',
		]);
		expect(events[0]).toEqual({ type: 'step_start', step: 1 });
		expect(events[1]).toMatchObject({ type: 'action', step: 1, tool: 'json_transform' });
		expect((events[1] as { summary: string }).summary).toBe(
			'json_transform {"data":{"items":[1,2,3]},"expression":"length(items)"}',
		);
		expect(events[2]).toEqual({
			type: 'observation',
			step: 1,
			tool: 'json_transform',
			ok: true,
			summary: '3',
		});
		expect(events[events.length - 1]).toEqual({ type: 'done', finish_reason: 'final' });
		expect(answerText(events)).toBe(LONG_ANSWER);
		expect(result.final_answer).toBe(LONG_ANSWER);
	});

	it('sends the first answer text while the reply is still arriving, not only when it has ended', async () => {
		const events: AgentEvent[] = [];
		const pieces = inPieces(final(LONG_ANSWER), 4);
		let piecesSentAtFirstAnswer: number | undefined;
		const model: ChatModel = {
			provider: 'pieces',
			async generate(request) {
				for (let sent = 1; sent <= pieces.length; sent++) {
					request.onTextDelta?.(pieces[sent - 1]);
					if (
						piecesSentAtFirstAnswer === undefined &&
						events.some((event) => event.type === 'answer_delta')
					)
						piecesSentAtFirstAnswer = sent;
				}
				return {
					text: pieces.join(''),
					usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
				};
			},
		};
		await runAgent({
			model,
			config: { model: 'm' },
			prompt: 'q',
			onEvent: (event) => events.push(event),
		});
		expect(piecesSentAtFirstAnswer).toBeDefined();
		// Well before the end: only the word still being written lags behind the model.
		expect(piecesSentAtFirstAnswer!).toBeLessThan(pieces.length - 5);
	});

	it('never sends text of an action reply, a <think> block or prose as answer text', async () => {
		const thinking =
			'<think>The answer is "secret plan" {"type":"final","answer":"not this"}</think>';
		const { model } = piecedModel([
			{
				pieces: inPieces(
					`${thinking}\n${action('json_transform', { data: { answer: 'not an answer' }, expression: 'answer' })}`,
					3,
				),
			},
			{ pieces: inPieces('Here is my answer: {"type":"final","answer":"prose first"}', 3) },
			{ pieces: inPieces(`${thinking}\n\`\`\`json\n${final(LONG_ANSWER)}\n\`\`\``, 3) },
		]);
		const { result, events } = await runWithEvents(model, { allowed_tools: ['json_transform'] });
		expect(result.finish_reason).toBe('final');
		expect(events.some((event) => event.type === 'answer_restart')).toBe(false);
		expect(answerText(events)).toBe(LONG_ANSWER);
	});

	it('streams after a closed <think> block, a BOM and a ```json fence line', async () => {
		const events: AgentEvent[] = [];
		const reply = `\uFEFF <think>plan</think>\n\`\`\`json\n{ "type" : "final" , "answer" : "${'word '.repeat(40)}end"}\n\`\`\``;
		let deltasBeforeEnd = 0;
		const model: ChatModel = {
			provider: 'pieces',
			async generate(request) {
				for (const piece of inPieces(reply, 6)) request.onTextDelta?.(piece);
				deltasBeforeEnd = events.filter((event) => event.type === 'answer_delta').length;
				return { text: reply, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
			},
		};
		const result = await runAgent({
			model,
			config: { model: 'm' },
			prompt: 'q',
			onEvent: (event) => events.push(event),
		});
		expect(deltasBeforeEnd).toBeGreaterThan(0);
		expect(answerText(events)).toBe(result.final_answer);
		expect(result.final_answer).toBe(`${'word '.repeat(40)}end`);
	});

	it('keeps keys in another order silent until the reply has ended, then sends the answer whole', async () => {
		const reply = JSON.stringify({ answer: LONG_ANSWER, type: 'final' });
		const { model } = piecedModel([{ pieces: inPieces(reply, 5) }]);
		const { events } = await runWithEvents(model);
		const deltas = events.filter((event) => event.type === 'answer_delta');
		expect(deltas).toEqual([{ type: 'answer_delta', text: LONG_ANSWER }]);
	});

	it('decodes escapes split across pieces: \\n, \\", \\\\, \\u00e9 and a surrogate pair given as two \\u escapes', async () => {
		const answer = `Line one "quoted" back\\slash café 😀 and more words to pass the hold-back of the stream, ${'padding '.repeat(12)}`;
		const reply = final(answer).replace('é', '\\u00e9').replace('😀', '\\ud83d\\ude00');
		expect(JSON.parse(reply).answer).toBe(answer);
		for (const size of [1, 2, 3, 5]) {
			const { model } = piecedModel([{ pieces: inPieces(reply, size) }]);
			const { result, events } = await runWithEvents(model);
			expect(answerText(events)).toBe(answer);
			expect(result.final_answer).toBe(answer);
			for (const event of events) {
				if (event.type === 'answer_delta')
					expect(JSON.stringify(event.text)).not.toMatch(/\\ud[89ab]/i);
			}
		}
	});

	it('voids streamed text with answer_restart when the reply turns out to break the protocol, then streams the repaired answer', async () => {
		const broken = `{"type":"final","answer":"${LONG_ANSWER.replace('\n', '\\n')}"} and some prose after it`;
		const { model } = piecedModel([
			{ pieces: inPieces(broken, 4) },
			{ pieces: inPieces(final('Repaired answer.'), 4) },
		]);
		const { result, events } = await runWithEvents(model);
		expect(result.finish_reason).toBe('final');
		const restartAt = events.findIndex((event) => event.type === 'answer_restart');
		expect(restartAt).toBeGreaterThan(0);
		expect(answerText(events.slice(0, restartAt)).length).toBeGreaterThan(0);
		expect(events[restartAt]).toEqual({
			type: 'answer_restart',
			reason: 'the reply broke the protocol',
		});
		expect(answerText(events.slice(restartAt))).toBe('Repaired answer.');
		expect(
			events.findIndex((event) => event.type === 'step_start' && event.step === 2),
		).toBeGreaterThan(restartAt);
	});

	it('voids streamed text when a reply is cut at the output limit', async () => {
		const cut = final(LONG_ANSWER).slice(0, -10);
		const { model } = piecedModel([
			{ pieces: inPieces(cut, 4), finishReason: 'length' },
			{ pieces: [final('short')] },
		]);
		const { events } = await runWithEvents(model);
		expect(typesOf(events)).toEqual([
			'step_start',
			'answer_delta',
			'answer_restart',
			'step_start',
			'answer_delta',
			'done',
		]);
		expect(
			answerText(events.slice(events.findIndex((event) => event.type === 'answer_restart'))),
		).toBe('short');
	});

	it('voids the text of an attempt the adapter retried, and streams the retry', async () => {
		const { model } = piecedModel([
			{
				failedAttempt: inPieces(final(`${LONG_ANSWER} first attempt`), 4).slice(0, -8),
				pieces: inPieces(final(LONG_ANSWER), 4),
			},
		]);
		const { result, events } = await runWithEvents(model);
		const restartAt = events.findIndex((event) => event.type === 'answer_restart');
		expect(restartAt).toBeGreaterThan(0);
		expect(events[restartAt]).toEqual({
			type: 'answer_restart',
			reason: 'the model call was retried',
		});
		expect(answerText(events.slice(restartAt))).toBe(result.final_answer);
		expect(result.final_answer).toBe(LONG_ANSWER);
	});

	it.each([
		['a key', 'sk-live-0123456789abcdefSECRET'],
		// Text is released at whitespace: a passphrase with spaces is what the hold-back is for.
		['a passphrase with spaces', 'open sesame 4f9c2b7e1d'],
	])(
		'never sends a known secret (%s) split across pieces, and the pieces still equal the redacted final answer',
		async (_kind, secret) => {
			const answer = `Your key is ${secret} and here is the rest of the long answer, ${'more words '.repeat(15)}done.`;
			for (const size of [1, 3, 7]) {
				const { model } = piecedModel([{ pieces: inPieces(final(answer), size) }]);
				const { result, events } = await runWithEvents(model, {}, [secret]);
				const streamed = answerText(events);
				expect(streamed).toBe(result.final_answer);
				expect(streamed).not.toContain(secret);
				expect(streamed).toContain('[REDACTED]');
				// No piece, and no pair of neighbouring pieces, holds any 6-character part of the secret.
				const deltas = events.flatMap((event) =>
					event.type === 'answer_delta' ? [event.text] : [],
				);
				for (let index = 0; index < deltas.length; index++) {
					const joined = deltas[index] + (deltas[index + 1] ?? '');
					for (let start = 0; start + 6 <= secret.length; start++)
						expect(joined).not.toContain(secret.slice(start, start + 6));
				}
			}
		},
	);

	it('does not hold the answer back by the length of a long API key without whitespace, and still never sends it', async () => {
		const apiKey = `sk-proj-${'A1b2C3d4'.repeat(20)}`;
		const answer = `Here it is: ${apiKey} and a few more words after it.`;
		const pieces = inPieces(final(LONG_ANSWER + answer), 4);
		const events: AgentEvent[] = [];
		let piecesSentAtFirstAnswer: number | undefined;
		const model: ChatModel = {
			provider: 'pieces',
			secrets: [apiKey],
			async generate(request) {
				for (let sent = 1; sent <= pieces.length; sent++) {
					request.onTextDelta?.(pieces[sent - 1]);
					if (
						piecesSentAtFirstAnswer === undefined &&
						events.some((event) => event.type === 'answer_delta')
					)
						piecesSentAtFirstAnswer = sent;
				}
				return {
					text: pieces.join(''),
					usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
				};
			},
		};
		const result = await runAgent({
			model,
			config: { model: 'm' },
			prompt: 'q',
			onEvent: (event) => events.push(event),
		});
		// The first text goes out within the first sentence, long before the key's 168 characters.
		expect(piecesSentAtFirstAnswer! * 4).toBeLessThan(final(LONG_ANSWER).length);
		expect(answerText(events)).toBe(result.final_answer);
		expect(answerText(events)).toContain('Here it is: [REDACTED] and');
		for (const event of events)
			if (event.type === 'answer_delta') expect(event.text).not.toContain('A1b2C3d4');
	});

	it('redacts action and observation summaries and keeps them on one line', async () => {
		const secret = 'tool-secret-9f8e7d6c5b4a';
		const { model } = piecedModel([
			{
				pieces: [
					action('json_transform', {
						data: { note: `line one\nline two ${secret}`, password: 'hunter22hunter22' },
						expression: 'note',
					}),
				],
			},
			{ pieces: [final('ok')] },
		]);
		const { events } = await runWithEvents(model, { allowed_tools: ['json_transform'] }, [secret]);
		const summaries = events.flatMap((event) =>
			event.type === 'action' || event.type === 'observation' ? [event.summary] : [],
		);
		expect(summaries).toHaveLength(2);
		for (const summary of summaries) {
			expect(summary).not.toContain(secret);
			expect(summary).not.toContain('hunter22');
			expect(summary).not.toMatch(/\n/);
		}
		expect(summaries[1]).toContain('[REDACTED]');
	});

	it('reports a refused tool call as a failed observation', async () => {
		const { model } = piecedModel([
			{ pieces: [action('http_request', { url: 'https://example.com' })] },
			{ pieces: [final('ok')] },
		]);
		const { events } = await runWithEvents(model, { allowed_tools: ['json_transform'] });
		expect(events.find((event) => event.type === 'observation')).toMatchObject({
			ok: false,
			tool: 'http_request',
		});
	});

	it('sends a model that does not stream its final answer as one piece when the reply is parsed', async () => {
		const model: ChatModel = {
			provider: 'whole',
			async generate() {
				return {
					text: final(LONG_ANSWER),
					usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
				};
			},
		};
		const { events } = await runWithEvents(model);
		expect(events).toEqual([
			{ type: 'step_start', step: 1 },
			{ type: 'answer_delta', text: LONG_ANSWER },
			{ type: 'done', finish_reason: 'final' },
		]);
	});

	it('keeps the run unchanged when the listener throws', async () => {
		const { model } = piecedModel([{ pieces: inPieces(final(LONG_ANSWER), 9) }]);
		const result = await runAgent({
			model,
			config: { model: 'm' },
			prompt: 'q',
			onEvent: () => {
				throw new Error('listener broke');
			},
		});
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe(LONG_ANSWER);
	});

	it('asks the model to stream only when there is a listener', async () => {
		const { model, requests } = piecedModel([{ pieces: [final('a')] }, { pieces: [final('b')] }]);
		await runAgent({ model, config: { model: 'm' }, prompt: 'q' });
		await runAgent({ model, config: { model: 'm' }, prompt: 'q', onEvent: () => undefined });
		expect('onTextDelta' in requests[0]).toBe(false);
		expect('onTextReset' in requests[0]).toBe(false);
		expect(typeof requests[1].onTextDelta).toBe('function');
	});
});

describe('runAgent without onEvent, through the real openai SDK', () => {
	const server = useScriptedServer();

	it('sends no stream field and gives the same result as before', async () => {
		server().setScript(final('Paris'));
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'scripted-model' },
			prompt: 'Capital of France?',
		});
		expect(result.final_answer).toBe('Paris');
		expect(server().requests[0].body).not.toHaveProperty('stream');
	});
});
