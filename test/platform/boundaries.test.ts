// Feature boundaries (docs/architecture.md): one feature reaches another only through the other's index.ts,
// and the features' own dependencies form no circle. scripts/import-graph.ts finds both; `npm run imports`
// prints them.
import { describe, expect, test } from 'bun:test';
import { describeEdge, type Floor, featureGraph, featureOf, findCircles, findDeepImports, type ImportGraph, readImportGraph } from '../../scripts/import-graph';

function graphOf(edges: [from: string, to: string][]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [from, to] of edges) {
    if (!graph.has(to)) graph.set(to, []);
    graph.set(from, [...(graph.get(from) ?? []), { from, to, line: (graph.get(from)?.length ?? 0) + 1, typeOnly: false }]);
  }
  return graph;
}

describe('the features of src/', () => {
  const graph = readImportGraph();

  test('no import reaches into another feature past its index.ts', () => {
    expect(findDeepImports(graph).map((edge) => describeEdge(edge))).toEqual([]);
  });

  test("the features' own dependencies form no circle", () => {
    expect(findCircles(featureGraph(graph)).map((chain) => chain.join(' -> '))).toEqual([]);
  });

  test('the feature graph is read whole: the gateway depends on keys, the VK channel on the assistant', () => {
    const features = featureGraph(graph);
    expect(features.get('gateway')!.map((edge) => edge.to)).toContain('keys');
    expect(features.get('integrations/social')!.map((edge) => edge.to)).toContain('assistant');
    expect(features.get('assistant')!.map((edge) => edge.to)).not.toContain('integrations/social');
  });
});

describe('which feature a file is in', () => {
  test('first-level folders are features, and so is each folder under integrations/; the base and the composition are none', () => {
    expect(featureOf('src/keys/verifier.ts')).toBe('keys');
    expect(featureOf('src/gateway/billing/leases.ts')).toBe('gateway');
    expect(featureOf('src/integrations/social/webhook.ts')).toBe('integrations/social');
    expect(featureOf('src/integrations/http-call.ts')).toBeNull();
    expect(featureOf('src/db/client.ts')).toBeNull();
    expect(featureOf('src/pricing/prices.ts')).toBeNull();
    expect(featureOf('src/trpc/init.ts')).toBeNull();
    expect(featureOf('src/services.ts')).toBeNull();
    expect(featureOf('web/src/keys/Keys.tsx')).toBeNull();
  });
});

describe('the checks catch what they are for (a made-up graph)', () => {
  const floors: Record<string, Floor> = {
    'src/features.ts': 'entry',
    'src/a/feature.ts': 'entry',
    'src/a/router.ts': 'http',
    'src/a/service.ts': 'feature',
    'src/a/index.ts': 'feature',
    'src/b/service.ts': 'feature',
    'src/b/index.ts': 'feature',
    'src/b/router.ts': 'http',
    'src/db/client.ts': 'base',
  };
  const floor = (path: string) => floors[path]!;

  test('a deep import into another feature is reported; through its index.ts, inside one feature, from the composition or into the base it is not', () => {
    const graph = graphOf([
      ['src/a/service.ts', 'src/b/service.ts'],
      ['src/a/router.ts', 'src/b/index.ts'],
      ['src/a/router.ts', 'src/a/service.ts'],
      ['src/a/service.ts', 'src/db/client.ts'],
      ['src/features.ts', 'src/b/service.ts'],
    ]);
    expect(findDeepImports(graph).map((edge) => `${edge.from} -> ${edge.to}`)).toEqual(['src/a/service.ts -> src/b/service.ts']);
  });

  test("a circle between two features' cores is found; a router's or a definition's import closes none", () => {
    const circular = graphOf([
      ['src/a/service.ts', 'src/b/index.ts'],
      ['src/b/service.ts', 'src/a/index.ts'],
    ]);
    expect(findCircles(featureGraph(circular, featureOf, floor))).toEqual([['a', 'b', 'a']]);
    const layered = graphOf([
      ['src/a/service.ts', 'src/b/index.ts'],
      ['src/b/router.ts', 'src/a/index.ts'],
      ['src/a/feature.ts', 'src/b/index.ts'],
    ]);
    expect(findCircles(featureGraph(layered, featureOf, floor))).toEqual([]);
  });
});
