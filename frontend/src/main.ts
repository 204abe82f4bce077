import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
// After app.css, which it builds on: the settings components' shared pieces.
import './components/settings/settings.css';

const target = document.getElementById('app');
if (!target) {
  throw new Error('TinyElf: #app element missing from index.html');
}

export default mount(App, { target });
