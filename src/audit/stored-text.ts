// How text PostgreSQL cannot hold (NUL, lone surrogates) is stored: reversibly escaped, so a run reads back exactly.

/**
 * The escape mark: a private-use character. Every stored string has each U+0000, each lone UTF-16
 * surrogate and each U+E000 itself replaced by this mark and the code unit's four upper-case hex digits
 * (U+0000 → "\uE000" + "0000", a lone U+D800 → "\uE000" + "D800", U+E000 → "\uE000" + "E000"), so reading
 * undoes it exactly and the hashes, computed over the run as it happened, still match what is read back.
 * PostgreSQL refuses U+0000 in text and jsonb, and a lone surrogate in jsonb; in a text column pg's driver
 * would turn it into U+FFFD silently (Node's UTF-8 encoder does), which is why text columns are escaped too.
 */
export const ESCAPE_MARK = '\uE000';

// Without the `u` flag the pattern sees UTF-16 code units, which is what a lone surrogate is.
const NEEDS_ESCAPE = /[\u0000\uE000]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ESCAPED = /\uE000([0-9A-F]{4})/g;

const hex = (character: string) => character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

/** A string as it is stored. */
export function escapeStoredText(text: string): string {
  NEEDS_ESCAPE.lastIndex = 0;
  return NEEDS_ESCAPE.test(text) ? text.replace(NEEDS_ESCAPE, (character) => `${ESCAPE_MARK}${hex(character)}`) : text;
}

/** A stored string as it was before escapeStoredText. */
export function unescapeStoredText(text: string): string {
  return text.includes(ESCAPE_MARK) ? text.replace(ESCAPED, (_, code: string) => String.fromCharCode(parseInt(code, 16))) : text;
}

/** A JSON value with every string (object keys included) passed through `map`; other values as they are. */
export function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    // fromEntries defines each key as its own property, so a key "__proto__" stays data.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]));
  }
  return value;
}
