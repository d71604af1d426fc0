// The one history window both Agent Context (characters) and the engine's long memory (tokens) cut by.
import { newestTurnsThatFit } from '../../src/core/history-window';

describe('the history window', () => {
	it('keeps the newest turns that fit the budget and the turn count', () => {
		expect(newestTurnsThatFit([5, 5, 5, 5], { budget: 12 })).toEqual({ kept: 2, used: 10 });
		expect(newestTurnsThatFit([5, 5, 5, 5], { budget: 100, maxTurns: 3 })).toEqual({
			kept: 3,
			used: 15,
		});
		expect(newestTurnsThatFit([5, 5, 5, 5], { budget: 100, maxTurns: 0 })).toEqual({
			kept: 4,
			used: 20,
		});
	});

	it('never leaves a gap: an older turn that would fit does not fill the budget after one that did not', () => {
		expect(newestTurnsThatFit([1, 50, 3], { budget: 10 })).toEqual({ kept: 1, used: 3 });
	});

	it('keeps nothing when the newest turn alone is over the budget, and nothing of an empty history', () => {
		expect(newestTurnsThatFit([1, 1, 11], { budget: 10 })).toEqual({ kept: 0, used: 0 });
		expect(newestTurnsThatFit([], { budget: 10 })).toEqual({ kept: 0, used: 0 });
	});
});
