import type { AgentEvent } from '../../src/agent/base/events';
import { runAgent } from '../../src/agent/run-agent';
import { splitIntoPieces } from '../../src/demo/scripted-stream';
import { action, final, modelFor, useScriptedServer } from '../support/agent';

/**
 * Issue #13 §3 through the real `openai` and `@google/genai` SDKs: the engine asks the adapter to stream
 * only when it has a listener, and the scripted server's streamed reply reaches the listener as answer
 * text piece by piece, before the reply has ended.
 */

const ANSWER =
	'The catalogue holds two items in stock under 50 EUR: the desk lamp at 39.90 EUR and the USB-C hub at 44 EUR. ' +
	'The office chair is over budget and the notebook pack is out of stock.';

/** Bounded, so a condition that never comes fails the test instead of hanging it (the server hears of a hang-up a moment later). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
	const deadline = Date.now() + 10_000;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

const answerOf = (events: AgentEvent[]) =>
	events.flatMap((event) => (event.type === 'answer_delta' ? [event.text] : [])).join('');

describe.each(['openai', 'gemini'] as const)(
	'a run with onEvent through the real %s SDK',
	(provider) => {
		const server = useScriptedServer();

		it('streams the model calls, reports the tool step, and sends the answer in several pieces that join to final_answer', async () => {
			server().setScript([
				action('json_transform', { data: [1, 2], expression: 'length(@)' }),
				{ text: final(ANSWER), chunks: splitIntoPieces(final(ANSWER), 6) },
			]);
			const events: AgentEvent[] = [];
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'scripted-model', allowed_tools: ['json_transform'] },
				prompt: 'q',
				onEvent: (event) => events.push(event),
			});

			expect(result.finish_reason).toBe('final');
			expect(server().requests.map((request) => request.streamed)).toEqual([true, true]);
			expect(events.slice(0, 4)).toEqual([
				{ type: 'step_start', step: 1 },
				{
					type: 'action',
					step: 1,
					tool: 'json_transform',
					summary: 'json_transform {"data":[1,2],"expression":"length(@)"}',
				},
				{ type: 'observation', step: 1, tool: 'json_transform', ok: true, summary: '2' },
				{ type: 'step_start', step: 2 },
			]);
			expect(events.filter((event) => event.type === 'answer_delta').length).toBeGreaterThan(3);
			expect(answerOf(events)).toBe(result.final_answer);
			expect(result.final_answer).toBe(ANSWER);
			expect(events[events.length - 1]).toEqual({ type: 'done', finish_reason: 'final' });
		});

		it('hands over the first answer text while the model is still streaming: cancelling then leaves the stream unfinished', async () => {
			server().setScript({
				text: final(ANSWER),
				chunks: splitIntoPieces(final(ANSWER), 6),
				chunkDelayMs: 20,
			});
			const events: AgentEvent[] = [];
			const controller = new AbortController();
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'scripted-model' },
				prompt: 'q',
				signal: controller.signal,
				onEvent: (event) => {
					events.push(event);
					if (event.type === 'answer_delta') controller.abort();
				},
			});

			expect(result.finish_reason).toBe('cancelled');
			// The server had not sent the whole reply when the client hung up: the answer text came from a live stream.
			await eventually(
				() => server().requests[0].clientLeftEarly,
				'the server to see the client leave',
			);
			expect(events.map((event) => event.type)).toEqual([
				'step_start',
				'answer_delta',
				'answer_restart',
				'done',
			]);
			expect(events[2]).toEqual({ type: 'answer_restart', reason: 'the model call failed' });
		});

		it('voids the text of a stream broken mid-answer and streams the retried call', async () => {
			server().setScript([
				{ text: final(ANSWER), chunks: splitIntoPieces(final(ANSWER), 6), streamCutAfter: 25 },
				{ text: final(ANSWER), chunks: splitIntoPieces(final(ANSWER), 6) },
			]);
			const events: AgentEvent[] = [];
			const result = await runAgent({
				model: modelFor(server(), provider, 1),
				config: { model: 'scripted-model' },
				prompt: 'q',
				onEvent: (event) => events.push(event),
			});

			expect(result.final_answer).toBe(ANSWER);
			expect(server().requests).toHaveLength(2);
			const restartAt = events.findIndex((event) => event.type === 'answer_restart');
			expect(answerOf(events.slice(0, restartAt)).length).toBeGreaterThan(0);
			expect(events[restartAt]).toEqual({
				type: 'answer_restart',
				reason: 'the model call was retried',
			});
			expect(answerOf(events.slice(restartAt))).toBe(ANSWER);
		});

		it('does not ask for a stream without a listener', async () => {
			server().setScript(final('Paris'));
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'scripted-model' },
				prompt: 'q',
			});
			expect(result.final_answer).toBe('Paris');
			expect(server().requests[0].streamed).toBe(false);
			if (provider === 'openai') expect(server().requests[0].body).not.toHaveProperty('stream');
		});
	},
);
