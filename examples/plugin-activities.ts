// The team's own activities in the plugin example: nothing to do with agents.
/** Formats an itinerary for the trip service's customers. */
export async function formatItinerary(city: string, plan: string): Promise<string> {
  return `Your day in ${city}: ${plan}`;
}
