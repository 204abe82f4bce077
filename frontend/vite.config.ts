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
    // Fonts (KaTeX's) stay files: the page's Content-Security-Policy
    // allows fonts from the app itself, not from data: URLs.
    assetsInlineLimit: (file: string) => (/\.(woff2?|ttf|otf)$/i.test(file) ? false : undefined),
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    // The machine is shared: a first test that mounts the whole App can take
    // longer than vitest's 5 s under load without anything being wrong.
    testTimeout: 30_000,
  },
});
