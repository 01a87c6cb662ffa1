import type { LinkBuilder } from '../../src/kernel/index.js'
import type { ResourceWidgets } from './resource-widgets.service.js'

/** What the widgets' listeners get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface WidgetsDeps {
  /** Absolute URLs: the embed codes' addresses. */
  readonly links: LinkBuilder
  /** The widgets of resources, kept per process until a widget changes. */
  readonly widgetsOf: ResourceWidgets
}
