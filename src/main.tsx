import { render } from 'preact';
import { App } from './app/App.tsx';
import { createLantern } from './app/lantern-instance.ts';
import './app/styles.css';

const lantern = createLantern();
// Exposed for end-to-end tests and field debugging from the console; not an API contract.
(globalThis as { lantern?: unknown }).lantern = lantern;
render(<App lantern={lantern} />, document.getElementById('app')!);
