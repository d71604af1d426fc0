// The node creator as a user drives it: type a search, read what it lists, pick an item by its exact name.
import type { Page } from 'playwright-core';

/**
 * Types `term` into the node creator's search and returns the names it lists: once `expected` is among them
 * (polled for up to 20 s, as n8n filters a moment after the typing), else the list as it stands then.
 */
export async function searchNodeCreator(
	page: Page,
	term: string,
	expected?: string,
): Promise<string[]> {
	const search = page
		.locator('[data-test-id="node-creator-search-bar"] input, input[placeholder^="Search"]')
		.first();
	await search.waitFor({ state: 'visible', timeout: 20000 });
	await search.fill('');
	await search.pressSequentially(term, { delay: 50 });
	const items = page.locator('[data-test-id="node-creator-item-name"]');
	await items.first().waitFor({ state: 'visible', timeout: 20000 });
	const deadline = Date.now() + 20000;
	let names = (await items.allInnerTexts()).map((name) => name.trim());
	while (expected && !names.includes(expected) && Date.now() < deadline) {
		await page.waitForTimeout(250);
		names = (await items.allInnerTexts()).map((name) => name.trim());
	}
	return names;
}

/** Clicks the listed item named exactly `name`. */
export async function pickNodeCreatorItem(page: Page, name: string): Promise<void> {
	await page
		.locator('[data-test-id="node-creator-item-name"]')
		.filter({ hasText: new RegExp(`^\\s*${name}\\s*$`) })
		.first()
		.click();
}
