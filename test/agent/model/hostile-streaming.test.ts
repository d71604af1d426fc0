import type { AgentEvent } from '../../../src/agent/base/events';
import { parseTurn } from '../../../src/agent/protocol/protocol';
import { runAgent } from '../../../src/agent/run-agent';
import { REDACTED } from '../../../src/trace/redact';
import { final, probeTool } from '../../support/agent';
import { deltasOf, inPieces, piecedModel, streamedText } from '../../support/pieced-model';
import { useEventLoopWatchdog } from '../../support/watchdog';

/**
 * A hostile model against streaming (issue #26): secrets in the answer must never go out, in any piece,
 * however the reply is split; a reply that is not a final answer must never run as a tool call after
 * streaming, and what it streamed is voided.
 */
const PASS_PHRASE = 'correct horse battery staple quokka zeppelin';
const API_VALUE = 'hunter2Zq9hunter2';
const BEARER_TOKEN = 'abcdefgh12345678XYZtoken';
/** Parts of the secrets that must never appear in any event. */
const FRAGMENTS = [...PASS_PHRASE.split(' '), 'hunter2', 'abcdefgh1234', '31415926535'];

const TEXT_ANSWER =
	`Your account is ready. The stored settings: {"user": "ana", "password": "${PASS_PHRASE}"} and the service line ` +
	`api_key=${API_VALUE} and the header Authorization: Bearer ${BEARER_TOKEN} go into the vault; nothing else is needed today.`;

async function streamed(pieces: string[], config: Record<string, unknown> = {}) {
	const events: AgentEvent[] = [];
	const { model, deltasBeforeEnd } = piecedModel(
		[{ pieces }, { pieces: [final('Repaired.')] }],
		events,
	);
	const result = await runAgent({
		model,
		config: { model: 'm', max_steps: 3, ...config },
		prompt: 'q',
		onEvent: (event) => events.push(event),
	});
	return { result, events, deltasBeforeEnd };
}

function expectNoFragment(events: AgentEvent[]): void {
	const text = JSON.stringify(events);
	for (const fragment of FRAGMENTS) expect(text).not.toContain(fragment);
}

describe('hostile streaming: secrets in a streamed answer', () => {
	useEventLoopWatchdog('streaming');

	it('a text answer with a JSON pass phrase, an api_key=… and a Bearer token streams none of them, split at every offset', async () => {
		const reply = final(TEXT_ANSWER);
		const splits = [...Array(reply.length + 1).keys()].map((offset) =>
			[reply.slice(0, offset), reply.slice(offset)].filter((piece) => piece !== ''),
		);
		for (const size of [1, 2, 3, 4, 5, 7, 11]) splits.push(inPieces(reply, size));
		for (const pieces of splits) {
			const { result, events } = await streamed(pieces);
			expect(result.finish_reason).toBe('final');
			expect(result.final_answer.split(REDACTED)).toHaveLength(4);
			expectNoFragment(events);
			expect(events.some((event) => event.type === 'answer_restart')).toBe(false);
			expect(streamedText(events)).toBe(result.final_answer);
		}
	});

	it('still streams that answer while it arrives: its first words go out before the reply has ended', async () => {
		const { deltasBeforeEnd, events } = await streamed(inPieces(final(TEXT_ANSWER), 4));
		expect(deltasBeforeEnd[0]).toBeGreaterThan(3);
		expect(deltasOf(events)[0]).toBe('Your ');
	});

	it('a typed (object) answer streams as the redacted final answer, its secret field and secrets in its strings blanked', async () => {
		const schema = {
			type: 'object',
			properties: { password: { type: 'string' }, note: { type: 'string' } },
			required: ['password', 'note'],
		};
		const answer = {
			password: PASS_PHRASE,
			note: `api_key=${API_VALUE} and Authorization: Bearer ${BEARER_TOKEN}`,
		};
		const reply = JSON.stringify({ type: 'final', answer });
		for (const size of [1, 3, 8]) {
			const { result, events } = await streamed(inPieces(reply, size), { output_schema: schema });
			expect(result.finish_reason).toBe('final');
			expect(result.final_output).toEqual({
				password: REDACTED,
				note: `api_key=${REDACTED} and Authorization: Bearer ${REDACTED}`,
			});
			expectNoFragment(events);
			expect(events.some((event) => event.type === 'answer_restart')).toBe(false);
			expect(streamedText(events)).toBe(result.final_answer);
		}
	});

	it.each([
		['an upper-case key', `{"PASSWORD": "${PASS_PHRASE}"}`],
		['a key spelled with a unicode escape', `{"\\u0070assword": "${PASS_PHRASE}"}`],
		['a key escaped in the middle', `{"pass\\u0077ord": "${PASS_PHRASE}"}`],
		['passwd', `{"passwd": "${PASS_PHRASE}"}`],
		['Client_Secret', `{"Client_Secret": "${PASS_PHRASE}"}`],
		['whitespace around the colon', `{"password"  \n :\t  "${PASS_PHRASE}"}`],
		['a number value', `{"password": 31415926535}`],
		['a quote before the key', `He said "a "password": "${PASS_PHRASE}" and left`],
		['a pass phrase with escaped quotes', `{"secret": "${PASS_PHRASE} \\"quoted\\" more"}`],
		['a Bearer token after 60 spaces', `Authorization: Bearer${' '.repeat(60)}${BEARER_TOKEN}`],
		['a Token after blank lines', `Token\n\n\n${BEARER_TOKEN}`],
		['key=value text', `export PASSWORD=${API_VALUE} client_secret=${API_VALUE}`],
	])(
		'a secret field with %s is never streamed, and the pieces equal the redacted final answer',
		async (_label, secretPart) => {
			const answer = `Here is what you asked for, word by word: ${secretPart} and then a few more words to end it.`;
			for (const size of [1, 2, 3, 5, 8, 13]) {
				const { result, events } = await streamed(inPieces(final(answer), size));
				expect(result.final_answer).toContain(REDACTED);
				expectNoFragment(events);
				expect(events.some((event) => event.type === 'answer_restart')).toBe(false);
				expect(streamedText(events)).toBe(result.final_answer);
			}
		},
	);

	it('a reply that writes the quotes of a secret field as \\u0022 escapes never streams it', async () => {
		const reply = final(`Stored: {"password": "${PASS_PHRASE}"} and done, thank you.`).replace(
			/\\"/g,
			'\\u0022',
		);
		expect(reply).toContain('\\u0022password\\u0022');
		for (const size of [1, 4, 6]) {
			const { result, events } = await streamed(inPieces(reply, size));
			expect(result.final_answer).toBe(`Stored: {"password": "${REDACTED}"} and done, thank you.`);
			expectNoFragment(events);
			expect(streamedText(events)).toBe(result.final_answer);
		}
	});

	it('a 190,000-character answer whose secret field never closes is held, read once, and sent whole at the end', async () => {
		const answerOf = (repeats: number) =>
			`Start "password": "${PASS_PHRASE} ${'and more words '.repeat(repeats)}`;
		const answer = answerOf(12_600);
		/** The fastest of three streamed runs of `text` (load on a shared machine only ever adds time). */
		const fastestRun = async (text: string) => {
			let fastest = Infinity;
			let run: Awaited<ReturnType<typeof streamed>> | undefined;
			for (let attempt = 0; attempt < 3; attempt++) {
				const started = performance.now();
				run = await streamed(inPieces(final(text), 8));
				fastest = Math.min(fastest, performance.now() - started);
			}
			return { fastest, run: run! };
		};
		// Reading the growing text again per piece is quadratic: a quarter of the text took 1/16 of the time (870 ms
		// for the whole here). Read once, a quarter takes about a quarter. The ratio, measured in the same moment,
		// holds on a loaded machine where a bound in milliseconds did not.
		const quarter = await fastestRun(answerOf(3_150));
		const whole = await fastestRun(answer);
		expect(whole.fastest / quarter.fastest).toBeLessThan(9);
		const { run } = whole;
		const { result, events } = run;
		// An unterminated value is no JSON field: the output shows it, and only then does the stream.
		expect(result.final_answer).toBe(answer);
		expect(deltasOf(events)).toEqual(['Start ', answer.slice('Start '.length)]);
	});

	it('an answer given as JSON text inside the string of a typed answer never streams its secret', async () => {
		const schema = {
			type: 'object',
			properties: { password: { type: 'string' } },
			required: ['password'],
		};
		const reply = final(JSON.stringify({ password: PASS_PHRASE }, null, 1));
		const { result, events } = await streamed(inPieces(reply, 3), { output_schema: schema });
		expect(result.final_output).toEqual({ password: REDACTED });
		expectNoFragment(events);
		const lastRestart = events.map((event) => event.type).lastIndexOf('answer_restart');
		expect(streamedText(events.slice(lastRestart + 1))).toBe(result.final_answer);
	});

	it('a known pass phrase (with spaces) split at every offset is never streamed', async () => {
		const secret = 'open sesame 4f9c2b7e1d';
		const reply = final(`The door phrase is ${secret} and it opens the vault for you.`);
		for (let offset = 0; offset <= reply.length; offset++) {
			const events: AgentEvent[] = [];
			const { model } = piecedModel(
				[{ pieces: [reply.slice(0, offset), reply.slice(offset)].filter(Boolean) }],
				events,
				[secret],
			);
			const result = await runAgent({
				model,
				config: { model: 'm' },
				prompt: 'q',
				onEvent: (event) => events.push(event),
			});
			expect(JSON.stringify(events)).not.toMatch(/sesame|4f9c2b/);
			expect(streamedText(events)).toBe(result.final_answer);
		}
	});

	it('a final answer followed by trailing garbage is a protocol error: what streamed is voided, no secret went out', async () => {
		const { result, events } = await streamed(
			inPieces(`${final(TEXT_ANSWER)} {"type":"action"}`, 4),
		);
		expect(result.trace[0].error?.type).toBe('parse_error');
		expectNoFragment(events);
		const restart = events.findIndex((event) => event.type === 'answer_restart');
		expect(restart).toBeGreaterThan(0);
		expect(streamedText(events.slice(restart))).toBe('Repaired.');
	});
});

describe('hostile streaming: a reply with duplicate keys', () => {
	useEventLoopWatchdog('streaming');

	it.each([
		['type', '{"type":"final","answer":"x","type":"action","tool":"probe","args":{}}'],
		['type', '{"type":"final","answer":"x","typ\\u0065":"action","tool":"probe","args":{}}'],
		['tool', '{"type":"action","tool":"probe","args":{},"tool":"other"}'],
		['args', '{"type":"action","tool":"probe","args":{"value":1},"args":{"value":2}}'],
		['answer', '{"type":"final","answer":"yes","answer":"no"}'],
		['note', '{"type":"final","answer":"yes","note":1,"\\u006eote":2}'],
	])('is a protocol error naming the duplicated key %s', (key, reply) => {
		const turn = parseTurn(reply);
		expect(turn.kind).toBe('error');
		expect((turn as { message: string }).message).toContain(`key "${key}" twice`);
	});

	it("accepts the same key name inside args and in the answer: only the object's own keys must be unique", () => {
		expect(
			parseTurn('{"type":"action","tool":"probe","args":{"type":"x","tool":"y"}}'),
		).toMatchObject({ kind: 'action', args: { type: 'x', tool: 'y' } });
	});

	it.each([
		['"type"', '"type":"action"'],
		['an escaped "typ\\u0065"', '"typ\\u0065":"action"'],
	])(
		'a final reply that adds a second %s key never runs the tool; its streamed text is voided before the repair step',
		async (_label, second) => {
			const text =
				'The transfer of 10,000 EUR is approved and booked under reference 4471, nothing left to do.';
			const reply = `{"type":"final","answer":${JSON.stringify(text)},${second},"tool":"probe","args":{"value":1}}`;
			const events: AgentEvent[] = [];
			const { model } = piecedModel(
				[{ pieces: inPieces(reply, 4) }, { pieces: [final('Repaired.')] }],
				events,
			);
			const probe = probeTool();
			const result = await runAgent({
				model,
				config: { model: 'm', allowed_tools: ['probe'] },
				prompt: 'q',
				extraTools: [probe.tool],
				onEvent: (event) => events.push(event),
			});
			expect(probe.calls).toEqual([]);
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'Repaired.' });
			expect(result.trace[0].error).toMatchObject({ type: 'parse_error' });
			expect(result.trace[0].error?.message).toContain('key "type" twice');
			expect(result.trace[0].action).toBeUndefined();
			const restart = events.findIndex((event) => event.type === 'answer_restart');
			expect(events[restart]).toEqual({
				type: 'answer_restart',
				reason: 'the reply broke the protocol',
			});
			expect(
				events.findIndex((event) => event.type === 'step_start' && event.step === 2),
			).toBeGreaterThan(restart);
			expect(events.some((event) => event.type === 'action')).toBe(false);
			expect(streamedText(events.slice(restart))).toBe('Repaired.');
		},
	);

	it("with streamAnswer 'checked', a second \"type\" after the answer streams none of that reply's text: the only answer text sent is the repaired answer", async () => {
		const text =
			'The transfer of 10,000 EUR is approved and booked under reference 4471, nothing left to do.';
		const reply = `{"type":"final","answer":${JSON.stringify(text)},"type":"action","tool":"probe","args":{"value":1}}`;
		const events: AgentEvent[] = [];
		const { model } = piecedModel(
			[
				{ pieces: inPieces(reply, 4) },
				{ pieces: inPieces(final('Repaired, and nothing was booked.'), 3) },
			],
			events,
		);
		const probe = probeTool();
		const result = await runAgent({
			model,
			config: { model: 'm', allowed_tools: ['probe'] },
			prompt: 'q',
			extraTools: [probe.tool],
			onEvent: (event) => events.push(event),
			streamAnswer: 'checked',
		});
		expect(probe.calls).toEqual([]);
		expect(result).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Repaired, and nothing was booked.',
		});
		expect(result.trace[0].error?.message).toContain('key "type" twice');
		expect(JSON.stringify(events)).not.toContain('4471');
		expect(
			events.filter((event) => event.type === 'answer_delta' || event.type === 'answer_restart'),
		).toEqual([{ type: 'answer_delta', text: 'Repaired, and nothing was booked.' }]);
	});

	it("with streamAnswer 'checked', an answer is sent once, redacted, after its reply closed, and a 190,000-character one is read once", async () => {
		const long = `${TEXT_ANSWER} ${'more words follow here '.repeat(8_000)}`;
		const events: AgentEvent[] = [];
		const { model, deltasBeforeEnd } = piecedModel([{ pieces: inPieces(final(long), 64) }], events);
		const result = await runAgent({
			model,
			config: { model: 'm' },
			prompt: 'q',
			onEvent: (event) => events.push(event),
			streamAnswer: 'checked',
		});
		expect(deltasBeforeEnd).toEqual([0]);
		expect(deltasOf(events)).toEqual([result.final_answer]);
		expectNoFragment(events);
	});

	it('refuses an unknown streamAnswer before any model call, naming the field and its values', async () => {
		const events: AgentEvent[] = [];
		const { model } = piecedModel([{ pieces: [final('x')] }], events);
		await expect(
			runAgent({
				model,
				config: { model: 'm' },
				prompt: 'q',
				onEvent: () => undefined,
				streamAnswer: 'whole' as never,
			}),
		).rejects.toThrow("streamAnswer must be 'as-written' or 'checked', not \"whole\"");
		expect(events).toEqual([]);
	});

	it('a duplicate key before the answer streams nothing at all', async () => {
		const reply = `{"type":"final","type":"action","answer":${JSON.stringify('words that must not stream '.repeat(5))},"tool":"probe","args":{"value":1}}`;
		const events: AgentEvent[] = [];
		const { model } = piecedModel(
			[{ pieces: inPieces(reply, 3) }, { pieces: [final('Repaired.')] }],
			events,
		);
		const probe = probeTool();
		await runAgent({
			model,
			config: { model: 'm', allowed_tools: ['probe'] },
			prompt: 'q',
			extraTools: [probe.tool],
			onEvent: (event) => events.push(event),
		});
		expect(probe.calls).toEqual([]);
		expect(
			events.filter((event) => event.type === 'answer_delta' || event.type === 'answer_restart'),
		).toEqual([{ type: 'answer_delta', text: 'Repaired.' }]);
	});
});
