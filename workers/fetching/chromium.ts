import { chromium, type Browser } from 'playwright-core';

/** Flags for a headless Chromium in a container: no sandbox (no user namespaces), no GPU, nothing phoning home. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * What the browser pool adds: WebRTC may send UDP only through the proxy, which carries none, so a page cannot
 * reach an internal address over STUN/TURN around the guarded SOCKS proxy.
 */
const POOL_ARGS = ['--webrtc-ip-handling-policy=disable_non_proxied_udp'];

/**
 * The features playwright-core turns off in every Chromium it launches (its `--disable-features`, as of the
 * version in package-lock.json). Chromium keeps only the last `--disable-features` on its command line, so a
 * feature of our own is turned off by replacing Playwright's switch with one that lists both. A test launches
 * Chromium through Playwright and fails when its switch no longer reads this.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * What the browser pool turns off besides, two kinds of renderer process that a headless task never uses
 * (docs/benchmarks.md):
 * - `WebUIOmniboxPopup`, `WebUIOmniboxAimPopup`: the address bar's popup, a WebUI page (with its own renderer)
 *   that Chromium makes ahead of time for every new window, so for every context. Without them a page in a
 *   fresh context starts one renderer instead of two, and costs Chromium about half the CPU.
 * - `SpareRendererForSitePerProcess`: a renderer started ahead of the next navigation. With the request
 *   filter's DevTools `Fetch` on each tab, Chromium started about half a renderer more a page with it.
 */
export const POOL_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'SpareRendererForSitePerProcess'];

const featureSwitch = (features: readonly string[]) => `--disable-features=${features.join(',')}`;

/**
 * Launch options that turn off Playwright's features and `features` (the pool's own unless given), in the one
 * switch Chromium reads.
 */
export function poolFeatureOptions(features: readonly string[] = POOL_DISABLED_FEATURES): { ignoreDefaultArgs: string[]; args: string[] } {
  return {
    ignoreDefaultArgs: [featureSwitch(PLAYWRIGHT_DISABLED_FEATURES)],
    args: [featureSwitch([...PLAYWRIGHT_DISABLED_FEATURES, ...features])],
  };
}

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
  const features = poolFeatureOptions();
  const launch = () =>
    chromium
      .launch({
        executablePath: opts.executablePath,
        ignoreDefaultArgs: features.ignoreDefaultArgs,
        args: [...CHROMIUM_ARGS, ...POOL_ARGS, ...features.args, ...(opts.extraArgs ?? [])],
        proxy: { server: opts.proxyUrl },
      })
      .then((browser) => {
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
