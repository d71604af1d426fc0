// The wire side of scripts/replay-realworld.js: a recording's protocol variant, and the reasoning it carries, per API.
// @ts-nocheck: a development script over untyped recorded JSON, checked by running it against the corpus, not by tsc.
'use strict';

const PREFIX = '{"type":"final","answer":"';
const SUFFIX = '"}';

/** The JSON string escape of `text`, without the quotes. */
const escaped = (text) => JSON.stringify(text).slice(1, -1);

/**
 * Rewrites the recorded text pieces so that, joined, they read {"type":"final","answer":"<recorded text>"}:
 * the first piece gets the opening, the last the closing (left out when `cut`: the JSON stays open, as the
 * recording was cut), every piece its JSON escape. Fields holding the whole text are rewritten whole.
 */
class PieceWriter {
	constructor(pieceCount, cut) {
		this.count = pieceCount;
		this.index = 0;
		this.cut = cut;
	}
	piece(text) {
		const first = this.index === 0;
		const last = this.index === this.count - 1;
		this.index++;
		return (first ? PREFIX : '') + escaped(text) + (last && !this.cut ? SUFFIX : '');
	}
	whole(text) {
		return PREFIX + escaped(text) + (this.cut ? '' : SUFFIX);
	}
}

/** Calls `visit(path, holder, key, kind)` for each text field of one response object or event (kind: piece | whole). */
const TEXT_FIELDS = {
	chat(json, visit) {
		for (const choice of Array.isArray(json.choices) ? json.choices : []) {
			// A leading <think> block (Groq's raw reasoning format, Hugging Face) is reasoning, not the recorded text, and leading
			// whitespace (Z.ai's "\nThe fruit…", pyd:test_zai/test_zai_vision_thinking#0) is what a model writes before its object: both stay before it.
			if (choice.message && typeof choice.message.content === 'string')
				visit(
					choice.message,
					'content',
					'piece',
					/^\s*(?:<think>[\s\S]*?<\/think>\s*)?/.exec(choice.message.content)?.[0] ?? '',
				);
			if (choice.delta && typeof choice.delta.content === 'string')
				visit(choice.delta, 'content', 'piece');
		}
	},
	gemini(json, visit) {
		for (const part of json?.candidates?.[0]?.content?.parts ?? [])
			if (typeof part.text === 'string' && !part.thought) visit(part, 'text', 'piece');
	},
	anthropic(json, visit) {
		for (const block of Array.isArray(json.content) ? json.content : [])
			if (block.type === 'text' && typeof block.text === 'string') visit(block, 'text', 'piece');
		if (
			json.type === 'content_block_start' &&
			json.content_block?.type === 'text' &&
			json.content_block.text
		)
			visit(json.content_block, 'text', 'piece');
		if (json.type === 'content_block_delta' && json.delta?.type === 'text_delta')
			visit(json.delta, 'text', 'piece');
	},
	responses(json, visit) {
		const outputs = (response) => {
			for (const item of Array.isArray(response?.output) ? response.output : []) {
				if (item.type !== 'message') continue;
				for (const part of item.content ?? [])
					if (part.type === 'output_text') visit(part, 'text', 'whole');
			}
		};
		if (json.type === undefined) {
			// A plain response: each output_text part is one piece.
			for (const item of Array.isArray(json.output) ? json.output : []) {
				if (item.type !== 'message') continue;
				for (const part of item.content ?? [])
					if (part.type === 'output_text') visit(part, 'text', 'piece');
			}
			if (typeof json.output_text === 'string') visit(json, 'output_text', 'whole');
			return;
		}
		if (json.type === 'response.output_text.delta') visit(json, 'delta', 'piece');
		if (json.type === 'response.output_text.done') visit(json, 'text', 'whole');
		if (
			(json.type === 'response.content_part.done' || json.type === 'response.content_part.added') &&
			json.part?.type === 'output_text' &&
			(json.type.endsWith('done') || json.part.text)
		)
			visit(json.part, 'text', 'whole');
		if (json.type === 'response.output_item.done' && json.item?.type === 'message')
			outputs({ output: [json.item] });
		if (json.response) outputs(json.response);
	},
};

/** The data lines of an event stream, with their place, and the parsed JSON of each (undefined when not JSON). */
function dataLines(body) {
	const lines = body.split('\n');
	const found = [];
	lines.forEach((line, index) => {
		const match = /^data:\s?(.*?)(\r?)$/.exec(line);
		if (!match) return;
		try {
			found.push({ index, json: JSON.parse(match[1]), carriage: match[2] });
		} catch {
			/* not JSON ([DONE], a comment): kept as recorded */
		}
	});
	return { lines, found };
}

/** The protocol variant of a recording's body (see README: `variant: protocol`); other bytes stay as recorded. */
function protocolBody(recording, cut) {
	const fields = TEXT_FIELDS[recording.api];
	// Anthropic's text often opens with "\n\n" (after thinking or tool use: vercel:anthropic:anthropic-clear-tool-uses.1.json,
	// pyd:test_anthropic/test_anthropic_opus_46_features[adaptive-thinking]#0): whitespace a model writes before its object, kept before it.
	const leadingWhitespace = () => {
		let before = recording.api === 'anthropic';
		return (text, keep) => {
			if (!before || keep !== '') return keep;
			const found = /^\s*/.exec(text)[0];
			if (found.length < text.length) before = false;
			return found;
		};
	};
	const rewrite = (objects, write) => {
		let pieces = 0;
		let whole = '';
		let leading = leadingWhitespace();
		for (const json of objects) {
			fields(json, (holder, key, kind, keep = '') => {
				if (kind !== 'piece') return;
				pieces++;
				whole += holder[key].slice(leading(holder[key], keep).length);
			});
		}
		const writer = new PieceWriter(pieces, cut);
		leading = leadingWhitespace();
		for (const json of objects) {
			fields(json, (holder, key, kind, keep = '') => {
				if (kind !== 'piece') return void (holder[key] = writer.whole(whole));
				const kept = leading(holder[key], keep);
				holder[key] = kept + writer.piece(holder[key].slice(kept.length));
			});
		}
		write();
	};
	if (!recording.stream) {
		const json = JSON.parse(recording.body);
		let out = recording.body;
		rewrite([json], () => (out = JSON.stringify(json)));
		return out;
	}
	const { lines, found } = dataLines(recording.body);
	let out = recording.body;
	rewrite(
		found.map((entry) => entry.json),
		() => {
			for (const entry of found)
				lines[entry.index] = `data: ${JSON.stringify(entry.json)}${entry.carriage}`;
			out = lines.join('\n');
		},
	);
	return out;
}

/** The reasoning a recording carries apart from its text, joined (empty when none). */
function recordedReasoning(recording) {
	const objects = recording.stream
		? dataLines(recording.body).found.map((entry) => entry.json)
		: [safeJson(recording.body)];
	let reasoning = '';
	for (const json of objects) {
		if (!json || typeof json !== 'object') continue;
		if (recording.api === 'chat') {
			for (const choice of json.choices ?? []) {
				const holder = choice.message ?? choice.delta ?? {};
				const piece = holder.reasoning_content ?? holder.reasoning;
				if (typeof piece === 'string') reasoning += piece;
			}
		} else if (recording.api === 'gemini') {
			for (const part of json?.candidates?.[0]?.content?.parts ?? [])
				if (part.thought && typeof part.text === 'string') reasoning += part.text;
		} else if (recording.api === 'anthropic') {
			for (const block of json.content ?? [])
				if (block.type === 'thinking') reasoning += block.thinking ?? '';
			if (json.type === 'content_block_delta' && json.delta?.type === 'thinking_delta')
				reasoning += json.delta.thinking ?? '';
		} else if (recording.api === 'responses') {
			if (json.type === 'response.reasoning_summary_text.delta') reasoning += json.delta ?? '';
			for (const item of json.output ?? [])
				if (item.type === 'reasoning')
					for (const part of item.summary ?? []) reasoning += part.text ?? '';
		}
	}
	return reasoning;
}

function safeJson(text) {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

module.exports = { protocolBody, recordedReasoning };
