import { parseTurn, MAX_REPLY_CHARACTERS } from '../src/agent/protocol';

describe('parseTurn: the Action/Final protocol', () => {
  it('reads an action with its args', () => {
    expect(parseTurn('{"type":"action","tool":"http_request","args":{"url":"https://x.test"}}')).toEqual({
      kind: 'action',
      tool: 'http_request',
      args: { url: 'https://x.test' },
      reasoning: undefined,
    });
  });

  it('reads a final answer', () => {
    expect(parseTurn('{"type":"final","answer":"42"}')).toMatchObject({ kind: 'final', answer: '42' });
  });

  it('accepts surrounding whitespace and a BOM', () => {
    expect(parseTurn('\uFEFF  \n{"type":"final","answer":"ok"}\n\t ')).toMatchObject({ kind: 'final', answer: 'ok' });
  });

  it('accepts one ```json fenced block holding one object', () => {
    expect(parseTurn('```json\n{"type":"final","answer":"fenced"}\n```')).toMatchObject({ kind: 'final', answer: 'fenced' });
    expect(parseTurn('```\n{"type":"final","answer":"bare fence"}\n```')).toMatchObject({ kind: 'final', answer: 'bare fence' });
  });

  it('sets a leading <think> block aside without parsing what is inside it', () => {
    const turn = parseTurn('<think>maybe {"type":"action","tool":"evil","args":{}} ?</think>\n{"type":"final","answer":"done"}');
    expect(turn).toMatchObject({ kind: 'final', answer: 'done' });
    expect(turn.reasoning).toContain('maybe');
  });

  it('keeps an answer that itself contains JSON untouched', () => {
    const answer = '{"type":"action","tool":"x","args":{}} and [1,2]';
    expect(parseTurn(JSON.stringify({ type: 'final', answer }))).toMatchObject({ kind: 'final', answer });
  });

  it('treats missing args as an empty object', () => {
    expect(parseTurn('{"type":"action","tool":"now"}')).toMatchObject({ kind: 'action', tool: 'now', args: {} });
  });

  it.each([
    ['prose before the object', 'Sure! {"type":"final","answer":"x"}', 'text before the JSON object'],
    ['prose after the object', '{"type":"final","answer":"x"} Hope this helps', 'text after the JSON object'],
    ['two objects', '{"type":"action","tool":"a","args":{}}\n{"type":"final","answer":"x"}', 'more than one JSON object'],
    ['plain text', 'The answer is 42.', 'no JSON object'],
    ['an empty reply', '   ', 'empty'],
    ['an array', '[{"type":"final","answer":"x"}]', 'JSON array'],
    ['an unknown type', '{"type":"thought","text":"hmm"}', 'Unknown "type" "thought"'],
    ['no type', '{"answer":"x"}', 'no "type"'],
    ['a missing tool', '{"type":"action","args":{}}', 'needs "tool"'],
    ['a missing answer', '{"type":"final"}', 'no "answer"'],
    ['a non-string answer', '{"type":"final","answer":{"a":1}}', '"answer" must be a string, but it was a object'],
    ['args that are not an object', '{"type":"action","tool":"t","args":"url=x"}', '"args" must be a JSON object, but it was a string'],
    ['args that are an array', '{"type":"action","tool":"t","args":[1]}', 'but it was an array'],
    ['broken JSON', '{"type":"final","answer":"x",}', 'not valid JSON'],
    ['an unclosed object', '{"type":"final","answer":"x"', 'never closed'],
    ['a fence with prose around it', 'Here:\n```json\n{"type":"final","answer":"x"}\n```', 'text before'],
    ['two fences', '```json\n{"type":"final","answer":"x"}\n```\n```json\n{}\n```', 'code fence'],
    ['an unclosed think block', '<think>still thinking', 'never closed it'],
  ])('rejects %s with a precise message and the expected format', (_name, reply, problem) => {
    const turn = parseTurn(reply);
    expect(turn.kind).toBe('error');
    if (turn.kind !== 'error') return;
    expect(turn.message).toContain(problem);
    expect(turn.message).toContain('{"type":"final","answer":"<your answer>"}');
  });

  it('does not mistake braces inside strings for the end of the object', () => {
    expect(parseTurn('{"type":"final","answer":"a } and a { and \\" quote"}')).toMatchObject({
      kind: 'final',
      answer: 'a } and a { and " quote',
    });
  });

  it('rejects a 1 MB reply of garbage quickly', () => {
    const garbage = 'x{'.repeat(512 * 1024);
    const started = performance.now();
    const turn = parseTurn(garbage);
    expect(turn.kind).toBe('error');
    expect(garbage.length).toBeGreaterThan(MAX_REPLY_CHARACTERS);
    expect(turn.kind === 'error' && turn.message).toContain('characters long');
    // Generous bound: the point is "no quadratic scan", not a benchmark.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('rejects a large unclosed reply under the size cap in linear time', () => {
    const turn = parseTurn('{' + '"a":['.repeat(30000));
    expect(turn.kind).toBe('error');
  });
});
