/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { PassRecord } from '../../contract/index.js';
import type { AssetUrls } from '../assets.js';
import type { Verifier } from '../verify/verifier.js';

/** What every page is rendered from. */
export interface PageProps {
  assets: AssetUrls;
  verifier: Verifier;
  /** The browser's pass, when its cookie is valid. */
  pass: PassRecord | null;
  /** The origin callers use, for the snippets. */
  baseUrl: string;
}

/**
 * The frame of every page. Scripts: our own (deferred, before the widget's so its
 * callbacks exist when the widget calls them) and the verification widget's, if one
 * is configured; nothing inline, as the CSP demands.
 */
export function Layout(props: { title: string; page: 'home' | 'pass'; withWidget: boolean; children?: Child } & PageProps) {
  const widget = props.withWidget ? props.verifier.widget : null;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <link rel="icon" href={props.assets.icon} type="image/svg+xml" />
        <link rel="stylesheet" href={props.assets.css} />
        <script src={props.assets.wording} defer></script>
        <script src={props.assets.answer} defer></script>
        <script src={props.assets.js} defer></script>
        <script src={props.assets.home} defer></script>
        <script src={props.assets.snippets} defer></script>
        {widget ? <script src={widget.scriptUrl} defer></script> : null}
      </head>
      <body data-page={props.page}>
        <a class="skip-link" href="#main">
          Skip to the content
        </a>
        <header class="top">
          <a class="brand" href="/">
            <img src={props.assets.icon} alt="" width="22" height="22" /> decide
          </a>
          <nav>
            <a href="/" aria-current={props.page === 'home' ? 'page' : undefined}>
              Home
            </a>
            <a href="/pass" aria-current={props.page === 'pass' ? 'page' : undefined}>
              Your pass
            </a>
            <a href="/openapi.json">OpenAPI</a>
          </nav>
        </header>
        {/* tabindex: the skip link moves the keyboard's focus here, not only the view. */}
        <main id="main" tabindex={-1}>
          <noscript>
            <p class="notice" id="noscript">
              This page's buttons and forms run on a small script of this server's own, and JavaScript is off: with it off they do nothing,
              and the decision form sends nothing. The HTTP API and the MCP tool server need no browser.
            </p>
          </noscript>
          {props.children}
        </main>
        <footer>
          <p>decide: structured decisions over HTTP and MCP. Keys are shown once; the service keeps only their fingerprints.</p>
        </footer>
      </body>
    </html>
  );
}

/** The page as a document. */
export async function documentOf(element: { toString(): string | Promise<string> }): Promise<string> {
  return '<!doctype html>' + (await element.toString());
}
