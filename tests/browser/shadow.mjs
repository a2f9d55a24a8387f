// The calculator is a custom element whose parts live in its shadow root, out of reach of
// document.querySelector: the tests' page-side code finds them with these, added to
// every page by `page.addInitScript(pierce)`. Playwright's own selectors pierce open
// shadow roots already.
export function pierce() {
  const roots = () => [document, ...[...document.querySelectorAll('divload-calculator')]
    .map((host) => host.shadowRoot).filter(Boolean)];
  // The first match in the page, then in each element's shadow root in document order.
  window.$q = (selector) => {
    for (const root of roots()) {
      const found = root.querySelector(selector);
      if (found) return found;
    }
    return null;
  };
  window.$qa = (selector) => roots().flatMap((root) => [...root.querySelectorAll(selector)]);
  // The focused control itself, not the element whose shadow root holds it.
  window.$active = () => {
    let e = document.activeElement;
    while (e?.shadowRoot?.activeElement) e = e.shadowRoot.activeElement;
    return e;
  };
}
