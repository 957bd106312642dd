// A tiny element builder. Text always goes in as text nodes, never as HTML: everything a run shows (arguments, a
// server's question, a model's answer) is untrusted.

type Child = Node | string | number | null | undefined | false;
type Props = Record<string, string | boolean | undefined | ((event: Event) => void)>;

/** An element with attributes (`on…` functions become listeners, `true` an empty attribute) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else element.setAttribute(name, value === true ? '' : value);
  }
  append(element, ...children);
  return element;
}

/** Appends children, skipping empty ones. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A value as readable JSON. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}
