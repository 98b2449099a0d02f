import { chromium, type Browser } from 'playwright-core';

/** Flags for a headless Chromium in a container: no sandbox (no user namespaces), no GPU, nothing phoning home. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * What the browser pool adds: WebRTC may send UDP only through the proxy, which carries none, so a page cannot
 * reach an internal address over STUN/TURN around the guarded SOCKS proxy.
 */
const POOL_ARGS = ['--webrtc-ip-handling-policy=disable_non_proxied_udp'];

export interface SharedBrowser {
  /** The process's browser, launched on first use and again after it died. */
  get(): Promise<Browser>;
  close(): Promise<void>;
}

/**
 * One Chromium per worker process, shared by its tasks (each in a context of
 * its own), with every connection through the guarded SOCKS proxy: with a
 * SOCKS proxy Playwright also turns off Chromium's own name resolution, so
 * no name is resolved outside the guard.
 */
export function createSharedBrowser(opts: { executablePath: string; proxyUrl: string; extraArgs?: readonly string[] }): SharedBrowser {
  let launching: Promise<Browser> | null = null;
  const launch = () =>
    chromium.launch({ executablePath: opts.executablePath, args: [...CHROMIUM_ARGS, ...POOL_ARGS, ...(opts.extraArgs ?? [])], proxy: { server: opts.proxyUrl } }).then((browser) => {
      browser.on('disconnected', () => {
        launching = null;
      });
      return browser;
    });
  return {
    get() {
      launching ??= launch().catch((err: unknown) => {
        launching = null;
        throw err;
      });
      return launching;
    },
    async close() {
      const browser = await launching?.catch(() => null);
      launching = null;
      await browser?.close().catch(() => undefined);
    },
  };
}
