// The editor's chat (Open chat on the canvas): send a message and read the reply once it has settled.
import type { Page } from 'playwright-core';

const MINUTE = 60000;

/** A reply that parses as a JSON object or array is what the chat must never show. */
export function looksLikeJson(text: string): boolean {
	const trimmed = text.trim();
	if (!/^[[{]/.test(trimmed)) return false;
	try {
		JSON.parse(trimmed);
		return true;
	} catch {
		return /^\{\s*"/.test(trimmed);
	}
}

/** Opens the chat when it is closed and returns its input. */
async function openChat(page: Page) {
	const input = page
		.locator('[data-test-id="chat-input"] textarea, textarea[data-test-id="chat-input"]')
		.first();
	if (!(await input.isVisible()))
		await page.locator('[data-test-id="workflow-chat-button"]').first().click();
	await input.waitFor({ state: 'visible', timeout: 30000 });
	return input;
}

/** Sends `message` in the editor's chat and returns the bot's reply once its text stops growing. */
export async function sendChat(page: Page, message: string): Promise<string> {
	const botMessages = page.locator('.chat-message-from-bot');
	const before = await botMessages.count();
	const input = await openChat(page);
	await input.fill(message);
	await input.press('Enter');
	await botMessages.nth(before).waitFor({ state: 'visible', timeout: 2 * MINUTE });
	// Wait for the reply's text to settle (a streamed or "typing" reply grows).
	let text = await botMessages.nth(before).innerText();
	for (let attempt = 0; attempt < 40; attempt++) {
		await page.waitForTimeout(250);
		const again = await botMessages.nth(before).innerText();
		if (again === text && text.trim()) break;
		text = again;
	}
	return text.trim();
}
