/**
 * JSON with object keys sorted at every level: one text for one value, whatever the key order. The loop
 * breaker compares calls by it, and run states are signed over it.
 *
 * Written as loops that append to one string: the trace's hash chain runs it over every step of every run.
 * The text is the one the map/filter/sort/join version gave, down to its quirks: an `undefined` property is
 * left out, a function or symbol is `null`, and a hole in an array is empty (`[1,,3]`), so no digest changes.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ',';
      const item: unknown = value[index];
      if (item !== undefined || index in value) text += canonicalJson(item);
    }
    return `${text}]`;
  }
  // The default sort: by UTF-16 code units, as before.
  const keys = Object.keys(value).sort();
  let text = '{';
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${text}}`;
}
