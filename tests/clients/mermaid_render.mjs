#!/usr/bin/env node
// Render Mermaid diagrams with the real mermaid (npm, v11) in headless Chromium, as GitHub does,
// and report for each: whether it rendered (or Mermaid's error), the SVG's natural width and
// height in pixels, and the nodes and edges drawn. Used by tests/render/test_mermaid.py (marked slow).
//
//   node mermaid_render.mjs NODE_MODULES CHROMIUM DIAGRAM.mmd...   -> one JSON line per diagram
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [modules, chromiumPath, ...files] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'x.js'));
const { chromium } = require('playwright-core');
const MERMAID_JS = path.join(modules, 'mermaid/dist/mermaid.min.js');
const version = JSON.parse(fs.readFileSync(path.join(modules, 'mermaid/package.json'), 'utf8')).version;

const browser = await chromium.launch({ executablePath: chromiumPath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
const page = await browser.newPage();
await page.route('**/*', (r) => r.abort()); // nothing leaves the page
await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body><div id="live"></div></body></html>');
await page.addScriptTag({ path: MERMAID_JS });
for (const [k, file] of files.entries()) {
  const text = fs.readFileSync(file, 'utf8');
  const t0 = Date.now();
  const r = await page.evaluate(async ({ text, k }) => {
    const m = window.mermaid;
    m.initialize({ startOnLoad: false, securityLevel: 'strict' });
    try {
      const { svg } = await m.render(`d${k}`, text);
      const live = document.getElementById('live');
      live.innerHTML = svg;
      const el = live.querySelector('svg');
      const vb = (el.getAttribute('viewBox') || '0 0 0 0').split(/\s+/).map(Number);
      const error = /Maximum text size in diagram exceeded|Syntax error in text/.test(svg) ? 'error drawn' : null;
      const out = { ok: !error, error, width: Math.round(vb[2]), height: Math.round(vb[3]),
        nodes: el.querySelectorAll('g.node').length, edges: el.querySelectorAll('g.edgePaths > path, path.flowchart-link').length,
        clusters: el.querySelectorAll('g.cluster').length };
      live.innerHTML = '';
      return out;
    } catch (e) {
      return { ok: false, error: String((e && e.message) || e).slice(0, 300) };
    }
  }, { text, k });
  console.log(JSON.stringify({ file, mermaid: version, ms: Date.now() - t0, chars: text.length, ...r }));
}
await browser.close();
