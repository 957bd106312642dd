// The example concierge's own tools: small and read-only over canned data (only the world clock reads the real
// clock), so the routed part of the demo behaves the same on every machine. With `get_weather` and `send_email`
// (from agents.ts) they make the pool the concierge reaches only through `searchTools` and `callTool`. Lookups use
// Maps, never plain objects: a model asking for the city "__proto__" must get "not found", not Object.prototype.
import { z } from 'zod';
import { createTool } from '../src/tool/tool.js';

/** Lower-case, single-spaced, accents removed: "São  Paulo" → "sao paulo". */
function normalize(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Looks `key` up in `table`, or throws a message that lists what the model may ask for instead. */
function lookup<T>(table: Map<string, T>, key: string, what: string): T {
  const found = table.get(key);
  if (found === undefined) throw new Error(`Unknown ${what} "${key}". Known: ${[...table.keys()].join(', ')}.`);
  return found;
}

const CITY_TIME_ZONES = new Map([
  ['tokyo', 'Asia/Tokyo'],
  ['paris', 'Europe/Paris'],
  ['london', 'Europe/London'],
  ['new york', 'America/New_York'],
  ['san francisco', 'America/Los_Angeles'],
  ['sydney', 'Australia/Sydney'],
]);

/** A world clock: the local time in a city, from the worker's clock and the city's IANA time zone. */
export const getLocalTime = createTool({
  name: 'get_local_time',
  description: 'Get the current local time and date in a city, with its time zone.',
  tags: ['clock', 'time zone', 'travel'],
  parameters: z.object({ city: z.string().max(100).describe('City name, e.g. Tokyo') }),
  outputSchema: z.object({ city: z.string(), timeZone: z.string(), localTime: z.string() }),
  mcp: { readOnlyHint: true },
  execute: async ({ city }) => {
    const timeZone = lookup(CITY_TIME_ZONES, normalize(city), 'city');
    // The sv-SE locale writes an ISO-like "2025-05-01 14:03", the same on every machine.
    const localTime = new Date().toLocaleString('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'short' });
    return { city, timeZone, localTime };
  },
});

/** Example rates (units of the currency per euro). Fixed on purpose: the demo must not need a network. */
const EUR_RATES = new Map([
  ['EUR', 1],
  ['USD', 1.08],
  ['GBP', 0.85],
  ['JPY', 162],
  ['CHF', 0.95],
]);

/** Converts money between currencies at fixed example rates. */
export const convertCurrency = createTool({
  name: 'convert_currency',
  description: 'Convert an amount of money from one currency to another (ISO codes such as EUR, USD, JPY).',
  tags: ['money', 'exchange rate', 'travel'],
  parameters: z.object({
    amount: z.number().finite().nonnegative(),
    from: z.string().length(3).describe('ISO 4217 code, e.g. EUR'),
    to: z.string().length(3).describe('ISO 4217 code, e.g. JPY'),
  }),
  mcp: { readOnlyHint: true },
  execute: async ({ amount, from, to }) => {
    const rate = lookup(EUR_RATES, to.toUpperCase(), 'currency') / lookup(EUR_RATES, from.toUpperCase(), 'currency');
    return {
      amount,
      from: from.toUpperCase(),
      to: to.toUpperCase(),
      converted: Math.round(amount * rate * 100) / 100,
      note: 'Fixed example rates, not market data.',
    };
  },
});

/** Length and mass units by symbol, in metres and kilograms. */
const UNITS = new Map([
  ['m', { dimension: 'length', factor: 1 }],
  ['km', { dimension: 'length', factor: 1000 }],
  ['ft', { dimension: 'length', factor: 0.3048 }],
  ['mi', { dimension: 'length', factor: 1609.344 }],
  ['kg', { dimension: 'mass', factor: 1 }],
  ['lb', { dimension: 'mass', factor: 0.45359237 }],
]);

/** Converts lengths and masses. */
export const convertUnits = createTool({
  name: 'convert_units',
  description: 'Convert a distance or a weight between metric and imperial units (km to miles, kg to pounds).',
  tags: ['measurement', 'metric', 'imperial'],
  parameters: z.object({
    value: z.number().finite(),
    from: z.enum(['m', 'km', 'ft', 'mi', 'kg', 'lb']),
    to: z.enum(['m', 'km', 'ft', 'mi', 'kg', 'lb']),
  }),
  mcp: { readOnlyHint: true },
  execute: async ({ value, from, to }) => {
    const [source, target] = [lookup(UNITS, from, 'unit'), lookup(UNITS, to, 'unit')];
    if (source.dimension !== target.dimension)
      throw new Error(`Cannot convert ${from} (a ${source.dimension}) to ${to}.`);
    return { value, from, to, converted: Number(((value * source.factor) / target.factor).toPrecision(6)) };
  },
});

const CONTACTS = [
  { name: 'Ana Souza', email: 'ana.souza@example.com', phone: '+1 555 0101', team: 'Design' },
  { name: 'Ben Okafor', email: 'ben.okafor@example.com', phone: '+1 555 0102', team: 'Sales' },
  { name: 'Chen Wei', email: 'chen.wei@example.com', phone: '+1 555 0103', team: 'Engineering' },
  { name: 'Dana Levi', email: 'dana.levi@example.com', phone: '+1 555 0104', team: 'Finance' },
];

/** Looks people up in a small example directory. */
export const lookupContact = createTool({
  name: 'lookup_contact',
  description: "Look up a colleague's email address, phone number and team by name.",
  tags: ['people', 'directory'],
  parameters: z.object({ name: z.string().min(1).max(100).describe('Full or partial name, e.g. Ana') }),
  mcp: { readOnlyHint: true },
  execute: async ({ name }) => {
    const wanted = normalize(name);
    const matches = wanted ? CONTACTS.filter((contact) => normalize(contact.name).includes(wanted)) : [];
    return matches.length > 0 ? { matches } : { matches, message: `Nobody named "${name}" in the directory.` };
  },
});

/** Works out a tip and splits the bill. */
export const calculateTip = createTool({
  name: 'calculate_tip',
  description: 'Work out the tip for a restaurant bill and split the total between people.',
  tags: ['money', 'restaurant'],
  parameters: z.object({
    bill: z.number().finite().positive().max(1_000_000),
    percent: z.number().min(0).max(100).default(15),
    people: z.number().int().min(1).max(100).default(1),
  }),
  mcp: { readOnlyHint: true },
  execute: async ({ bill, percent, people }) => {
    const cents = (value: number) => Math.round(value * 100) / 100;
    const tip = cents((bill * percent) / 100);
    return { bill, percent, tip, total: cents(bill + tip), perPerson: cents((bill + tip) / people) };
  },
});

const PACKAGES = new Map([
  ['1Z999AA10123456784', { carrier: 'UPS', status: 'in transit', lastScan: 'Lyon, FR' }],
  ['JD014600006281230680', { carrier: 'DHL', status: 'out for delivery', lastScan: 'Berlin, DE' }],
]);

/** Tracks a parcel by its tracking number (example data). */
export const trackPackage = createTool({
  name: 'track_package',
  description: 'Track a parcel shipment by its tracking number: carrier, status and where it was last scanned.',
  tags: ['shipping', 'delivery'],
  parameters: z.object({ trackingNumber: z.string().min(1).max(40) }),
  mcp: { readOnlyHint: true },
  execute: async ({ trackingNumber }) => {
    const found = PACKAGES.get(trackingNumber.replace(/\s+/g, '').toUpperCase());
    return found
      ? { trackingNumber, found: true, ...found }
      : { trackingNumber, found: false, message: 'No shipment with this tracking number. Check the number.' };
  },
});

const FLIGHTS = new Map([
  ['AF276', { route: 'Paris CDG → Tokyo HND', status: 'on schedule', gate: '2E-K45' }],
  ['BA117', { route: 'London LHR → New York JFK', status: 'delayed 35 minutes', gate: '5B-B42' }],
]);

/** Reports a flight's status from a short example board. */
export const getFlightStatus = createTool({
  name: 'get_flight_status',
  description: 'Get the status and gate of a flight by its flight number.',
  tags: ['travel', 'airline'],
  parameters: z.object({ flightNumber: z.string().min(2).max(10).describe('e.g. AF276') }),
  mcp: { readOnlyHint: true },
  execute: async ({ flightNumber }) => {
    const key = flightNumber.replace(/\s+/g, '').toUpperCase();
    return { flightNumber: key, ...lookup(FLIGHTS, key, 'flight') };
  },
});

const RESTAURANTS = new Map([
  ['paris', ['Le Petit Zinc (French)', 'Kunitoraya (Japanese)']],
  ['london', ['Dishoom (Indian)', 'Padella (Italian)']],
  ['tokyo', ['Tsuta (ramen)', 'Sushi Dai (sushi)']],
]);

/** Suggests restaurants in a city from a short example list. */
export const findRestaurants = createTool({
  name: 'find_restaurants',
  description: 'Find well-rated restaurants in a city.',
  tags: ['food', 'dining', 'travel'],
  parameters: z.object({ city: z.string().max(100) }),
  mcp: { readOnlyHint: true },
  execute: async ({ city }) => ({ city, restaurants: lookup(RESTAURANTS, normalize(city), 'city') }),
});

/** The concierge's own tools (it also pools `get_weather` and `send_email`). */
export const conciergeTools = [
  getLocalTime,
  convertCurrency,
  convertUnits,
  lookupContact,
  calculateTip,
  trackPackage,
  getFlightStatus,
  findRestaurants,
];
