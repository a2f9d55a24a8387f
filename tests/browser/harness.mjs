// What both browser tests start the same way: the page's own server (wasm/www/serve.mjs
// on a free port) and headless Chromium from Debian's package, never a downloaded one.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

// Resolves to the server and its base URL once it says where it serves.
export async function serve(repo) {
  const server = spawn(process.execPath, [join(repo, 'wasm', 'www', 'serve.mjs'), '--port', '0'],
                       { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    server.stdout.on('data', (d) => {
      const m = /serving (http:\/\/\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { server, url };
}

export const launch = () => chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
