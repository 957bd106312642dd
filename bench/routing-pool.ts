// The 1,000-tool pool of the routing benchmarks (bench/routing.ts, bench/routing-durable.ts): the 136 labelled tools
// of test/fixtures/routing, then regional variants with their own names and descriptions.
import { ToolManager } from '../src/tool/tool-manager.js';
import { fixtureTools, toTool, type FixtureTool } from '../test/fixtures/routing/load-fixture.js';

/** Tools in the benchmark pool. */
export const POOL_SIZE = 1_000;

const REGIONS = ['us', 'eu', 'uk', 'apac', 'latam', 'ca', 'in', 'jp'];

/** 1,000 distinct tools: the 136 labelled ones, then regional variants with their own names and descriptions. */
export function thousandTools(): ToolManager {
  return new ToolManager(thousandToolSpecs().map((spec) => toTool(spec)));
}

/** The specs of {@link thousandTools}. */
export function thousandToolSpecs(): FixtureTool[] {
  const base = fixtureTools();
  const specs: FixtureTool[] = [];
  for (let round = 0; specs.length < POOL_SIZE; round++) {
    for (const spec of base) {
      if (specs.length >= POOL_SIZE) break;
      if (round === 0) specs.push(spec);
      else {
        const region = REGIONS[(round - 1) % REGIONS.length]!;
        specs.push({
          ...spec,
          name: `${spec.name}_${region}${round > REGIONS.length ? round : ''}`,
          description: `${spec.description} Uses the ${region.toUpperCase()} service endpoint.`,
        });
      }
    }
  }
  return specs;
}
