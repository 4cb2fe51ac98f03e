import type { Services } from './services.ts';

/** Placeholder until the signed model store lands (issue 3). */
export function ModelsView(_props: { services: Services }) {
  return <p>Models</p>;
}
