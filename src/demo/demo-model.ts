import { readObservation } from '../agent/prompt';
import type { ScriptedReply, ScriptedRequest } from './scripted-server';

/** The sample task `npm run demo` runs: a question over a small catalogue embedded in the prompt. */
export const DEMO_PROMPT = `Which products are in stock and cost less than 50 EUR? Catalogue: ${JSON.stringify({
  items: [
    { name: 'Desk lamp', price: 39.9, in_stock: true },
    { name: 'Office chair', price: 189, in_stock: true },
    { name: 'Notebook pack', price: 12.5, in_stock: false },
    { name: 'USB-C hub', price: 44, in_stock: true },
  ],
})}`;

export const DEMO_EXPRESSION = 'items[?in_stock && price < `50`].name';

/**
 * A scripted stand-in for a model, so a newcomer sees a whole run without an API key: it follows the
 * protocol like a well-behaved model would — one json_transform call over the catalogue in the prompt,
 * then a final answer built from the observation it was sent.
 */
export function demoModel(request: ScriptedRequest): ScriptedReply {
  const last = request.messages[request.messages.length - 1]?.content ?? '';
  const observation = readObservation(last);
  if (observation?.tool === 'json_transform') {
    let names: unknown;
    try {
      names = JSON.parse(observation.text);
    } catch {
      names = observation.text;
    }
    const list = Array.isArray(names) ? names.join(' and ') : String(names);
    return JSON.stringify({ type: 'final', answer: `In stock and under 50 EUR: ${list}.` });
  }
  const catalogue = /Catalogue: (\{[\s\S]*\})\s*$/.exec(last);
  if (!catalogue) {
    return JSON.stringify({ type: 'final', answer: 'The demo model only knows the catalogue question; run with a real provider for anything else.' });
  }
  return JSON.stringify({ type: 'action', tool: 'json_transform', args: { data: JSON.parse(catalogue[1]), expression: DEMO_EXPRESSION } });
}
