import { render } from 'preact';
import { App } from './app/App.tsx';
import { createServices } from './app/services.ts';
import './app/styles.css';

const services = createServices();
// Exposed for end-to-end tests and field debugging from the console; not an API contract.
(globalThis as { lantern?: unknown }).lantern = services.lantern;
render(<App services={services} />, document.getElementById('app')!);
