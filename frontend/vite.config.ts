import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import { defineConfig } from 'vitest/config';

// The desktop binary embeds dist/ (see desktop.go); `tinyelf serve` serves the same files.
export default defineConfig({
  plugins: [svelte(), svelteTesting()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    // The machine is shared: a first test that mounts the whole App can take
    // longer than vitest's 5 s under load without anything being wrong.
    testTimeout: 30_000,
  },
});
