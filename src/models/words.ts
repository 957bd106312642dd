// Word handling shared by the offline demo model (matching tools to a request) and the offline embedder (hashed
// bag of words). Deterministic and dependency-free on purpose: the offline models must behave the same on every
// worker, so a retried activity sees the same answer.

/** Words too common to say anything about which tool a request wants. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can could do does for from get give has have how i in into is it its me my ' +
    'of on or please show tell that the their then there this to us was we what when where which who why ' +
    'will with would you your tool tools use using call returns return given about some any all now today ' +
    'let lets want need'
  ).split(' '),
);

/**
 * Splits text into lower-case words, also breaking identifiers (`get_weather`, `getWeather`, `get-weather`) so a
 * tool's name can be compared with a sentence.
 */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/** A crude stem (plural and common verb endings), enough to match `forecasts` with `forecast`. */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('es') && /(s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  return word;
}

/** Stemmed words that carry meaning: stop words and one-letter words dropped. */
export function contentWords(text: string): string[] {
  return splitWords(text)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word))
    .map(stem);
}
