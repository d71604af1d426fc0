/**
 * The engine's conversation as LangChain message objects, with a run's files (issue #40): a user message with
 * images or PDFs gets content parts, its text first and then each file in order.
 *
 * - An image is `{type: 'image_url', image_url: {url: <data: URL>}}`, as n8n's AI Agent builds it for a binary
 *   image (n8n-io/n8n packages/@n8n/nodes-langchain/nodes/agents/Agent/agents/ToolsAgent/common.ts,
 *   `defaultBinaryDataToContentBlock`). Every class reads it: ChatOpenAI sends it as it is on chat completions
 *   and as `input_image` on the Responses API (@langchain/openai converters/responses.js); ChatAnthropic as an
 *   `image` block with a base64 source (@langchain/anthropic utils/message_inputs.js `_formatImage`).
 * - A PDF has no block that every installed class converts right (@langchain/core 1.2.8, @langchain/openai
 *   1.4.4, @langchain/anthropic 1.5.6; each form below was sent through the real class to the scripted server):
 *   - the data content block `{type: 'file', source_type: 'base64', mime_type, data, metadata: {filename}}`
 *     (core's `isDataContentBlock`; deprecated in core 1.x but still what converters read) becomes
 *     `{type: 'file', file: {file_data, filename}}` on chat completions, as it should; but on the Responses API
 *     ChatOpenAI sends that same chat-completions part (the API takes `input_file` only), and ChatAnthropic
 *     sends the document twice (`_formatContentBlocks` converts the data block, then its `type: 'file'`
 *     branch converts it again);
 *   - the v1 block `{type: 'file', mimeType, data}` is one `document` on ChatAnthropic, but ChatOpenAI sends
 *     it unconverted on chat completions and drops it on the Responses API.
 *   So a PDF goes in the form the class converts right: the Responses API's own `input_file` part
 *   `{type: 'input_file', filename, file_data: <data: URL>}` (passed through unchanged: responses.js keeps
 *   `input_text`/`input_image`/`input_file` items), the v1 block for ChatAnthropic, and the data content
 *   block for chat completions and every other class (the standard block their converters read).
 */
import { hasFilesKey, type ChatMessage } from '../../core/messages';
import { sentFiles, type SentFile } from '../file-parts';
import type { FileMarkers } from '../file-body';
import { isOpenAiClass, normaliseProvider, safeLlmType } from './class';

/** How the class takes a PDF (see the file comment). */
export type PdfStyle = 'responses' | 'anthropic' | 'data_block';

type Part = Record<string, unknown>;

/** A message as the adapter hands it to the class (`invoke` coerces `{role, content}` into a BaseMessage). */
export interface LangChainMessage {
	role: ChatMessage['role'];
	content: string | Part[];
}

/**
 * One file as a LangChain content part for a class that takes PDFs in `style`. With `markers` (a class whose
 * requests stream their files: file-fetch.ts) the file's base64 is a marker the request swaps back.
 */
export function langChainFilePart(file: SentFile, style: PdfStyle, markers?: FileMarkers): Part {
	const base64 = () => (markers ? markers.urlOf(file) : file.base64());
	const dataUrl = () =>
		markers ? `data:${file.type};base64,${markers.urlOf(file)}` : file.dataUrl();
	if (file.kind === 'image') return { type: 'image_url', image_url: { url: dataUrl() } };
	if (style === 'responses')
		return { type: 'input_file', filename: file.name, file_data: dataUrl() };
	if (style === 'anthropic')
		return {
			type: 'file',
			mimeType: file.type,
			data: base64(),
			metadata: { filename: file.name },
		};
	return {
		type: 'file',
		source_type: 'base64',
		mime_type: file.type,
		data: base64(),
		metadata: { filename: file.name },
	};
}

/** The request's messages for the class: `{role, content}`, content parts where a user message has files. */
export function langChainMessages(
	messages: readonly ChatMessage[],
	style: PdfStyle,
	markers?: FileMarkers,
): LangChainMessage[] {
	return messages.map((message) => {
		const files = hasFilesKey(message) ? sentFiles(message) : [];
		if (files.length === 0) return { role: message.role, content: message.content };
		return {
			role: message.role,
			content: [
				// An empty text part is left out: the files are the whole message then.
				...(message.content === '' ? [] : [{ type: 'text', text: message.content }]),
				...files.map((file) => langChainFilePart(file, style, markers)),
			],
		};
	});
}

/**
 * The PDF style of a class: `anthropic` for ChatAnthropic (its llm type), `responses` for a ChatOpenAI that
 * calls the Responses API with these call options (its own `_useResponsesApi`, which n8n's OpenAI Chat Model
 * turns on with its Responses API option), else the data content block.
 */
export function pdfStyleOf(model: object, options: Record<string, unknown>): PdfStyle {
	if (normaliseProvider(safeLlmType(model)) === 'anthropic') return 'anthropic';
	const { _useResponsesApi: usesResponses } = model as { _useResponsesApi?: unknown };
	if (isOpenAiClass(model) && typeof usesResponses === 'function') {
		try {
			if (usesResponses.call(model, options) === true) return 'responses';
		} catch {
			// A wrapper that cannot answer: chat completions, the class's default.
		}
	}
	return 'data_block';
}
