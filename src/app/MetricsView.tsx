import type { Services } from './services.ts';

/** Placeholder until the metrics view lands (issue 6). */
export function MetricsView(_props: { services: Services }) {
  return <p>Metrics</p>;
}
