/**
 * The one way the explorer's templates make elements: preact's `h` for an
 * HTML or SVG tag with plain attributes, typed loosely enough for this
 * repository's strict options (preact's own typings expect JSX and the DOM
 * library). The renderer escapes every text and attribute value it writes.
 */
import { type ComponentChildren, h, type VNode } from "preact"

/** An element's attributes: absent (undefined or null) ones are not written. */
export type Attributes = Readonly<Record<string, string | number | boolean | undefined | null>>

export type Child = ComponentChildren

export type Node = VNode

const make = h as unknown as (tag: string, attributes: Attributes | null, ...children: Array<Child>) => VNode

/** An element. */
export const el = (tag: string, attributes: Attributes | null, ...children: Array<Child>): VNode =>
  make(tag, attributes, ...children)
