// Counters and histograms for what every /v1 request records. prom-client hashes a metric's labels and
// validates them on every inc() and observe(), even through a bound child: ~3–4 µs a request on the
// gateway's path, twice what the metrics may cost. These keep one plain record per label set, bound once,
// so recording is arithmetic; prom-client still owns the registry and the text format, and reads these
// through the same get() contract its own metrics implement (Registry.registerMetric).
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: MetricValue[];
}

export interface HotCounterChild {
  inc(by?: number): void;
}

export interface HotHistogramChild {
  observe(value: number): void;
}

abstract class HotMetric<Child> {
  readonly aggregator = 'sum' as const;
  protected readonly children = new Map<string, { labels: Labels; child: Child }>();

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  protected abstract make(): Child;

  /** The record of one label set, made on first use; keep it (a Map lookup by a key the caller builds). */
  labels(labels: Labels): Child {
    const key = JSON.stringify(labels);
    let found = this.children.get(key);
    if (!found) {
      found = { labels: { ...labels }, child: this.make() };
      this.children.set(key, found);
    }
    return found.child;
  }

  reset(): void {
    this.children.clear();
  }
}

class CounterRecord implements HotCounterChild {
  value = 0;
  inc(by = 1) {
    this.value += by;
  }
}

export class HotCounter extends HotMetric<CounterRecord> {
  readonly type = 'counter' as const;

  protected make() {
    return new CounterRecord();
  }

  async get(): Promise<Exported> {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: [...this.children.values()].map(({ labels, child }) => ({ labels, value: child.value })),
    };
  }
}

class HistogramRecord implements HotHistogramChild {
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(value: number) {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class HotHistogram extends HotMetric<HistogramRecord> {
  readonly type = 'histogram' as const;

  constructor(
    name: string,
    help: string,
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    super(name, help, registry);
  }

  protected make() {
    return new HistogramRecord(this.bounds);
  }

  async get(): Promise<Exported> {
    const values: MetricValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, child } of this.children.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += child.counts[i]!;
        values.push({ labels: { ...labels, le: String(le) }, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { ...labels, le: '+Inf' }, value: child.count, metricName: bucket });
      values.push({ labels, value: child.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: child.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
