/**
 * The prompt tokens a file costs, by each provider's published rule, for the estimate of a call whose usage was
 * not reported and for the history's token budget. A provider the rules do not know is counted by OpenAI's.
 */
import type { RunFile } from './run-file';

/** An image's size when its header did not say: a phone photo's. */
const UNKNOWN_SIDE = 1024;

/**
 * OpenAI, high detail: fit within 2048×2048, then the shortest side to 768; 170 per 512-px tile plus 85
 * (platform.openai.com/docs/guides/images-vision, "Calculating costs"). A PDF page is sent as its text and an
 * image of the page (platform.openai.com/docs/guides/pdf-files): counted as one 768×1024 image plus 500 text tokens.
 */
function openAiImage(width: number, height: number): number {
	let [w, h] = [width, height];
	const fit = Math.min(1, 2048 / Math.max(w, h));
	[w, h] = [w * fit, h * fit];
	const shortest = Math.min(1, 768 / Math.min(w, h));
	[w, h] = [w * shortest, h * shortest];
	return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/**
 * Anthropic: width × height / 750, after the long edge is brought to 1568 px at most
 * (docs.anthropic.com/en/docs/build-with-claude/vision, "Evaluate image size"); a PDF page 1,500–3,000 text tokens
 * plus its image (docs.anthropic.com/en/docs/build-with-claude/pdf-support): 3,000 per page counted.
 */
function anthropicImage(width: number, height: number): number {
	const fit = Math.min(1, 1568 / Math.max(width, height));
	return Math.ceil((width * fit * (height * fit)) / 750);
}

/**
 * Gemini: 258 for an image with both sides ≤ 384 px, else 258 per 768×768 tile; 258 per PDF page
 * (ai.google.dev/gemini-api/docs/tokens, "Multimodal tokens"; /docs/document-processing).
 */
function geminiImage(width: number, height: number): number {
	if (width <= 384 && height <= 384) return 258;
	return 258 * Math.ceil(width / 768) * Math.ceil(height / 768);
}

/** Tokens of one file sent to `provider` ('openai', 'gemini', 'anthropic', or a connected model's name). */
export function fileTokens(file: RunFile, provider: string): number {
	const { width = UNKNOWN_SIDE, height = UNKNOWN_SIDE, pages = 1 } = file.measure();
	const family = /anthropic|claude/i.test(provider)
		? 'anthropic'
		: /gemini|google|vertex/i.test(provider)
			? 'gemini'
			: 'openai';
	if (file.kind === 'pdf') {
		if (family === 'anthropic') return pages * 3000;
		if (family === 'gemini') return pages * 258;
		return pages * (openAiImage(768, 1024) + 500);
	}
	if (file.kind !== 'image') return 0;
	if (family === 'anthropic') return anthropicImage(width, height);
	if (family === 'gemini') return geminiImage(width, height);
	return openAiImage(width, height);
}
