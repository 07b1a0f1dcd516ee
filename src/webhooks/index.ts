// Webhook endpoints and their signed, at-least-once delivery (docs/webhooks.md). Receivers import
// verify.ts on its own, as `flight-status-service/webhooks`.
export { WebhookService } from './service.js';
export {
  ACCOUNT_EVENT_TYPES,
  KEPT_BODY_EVENT_TYPES,
  queueWatchEvent,
  type AccountEvent,
  type AccountEventType,
  type WatchEvent as WatchEventDelivery,
} from './account-events.js';
export {
  DELIVERY_STATES,
  RESENDABLE_STATES,
  type ResendableState,
  type WebhookView,
  type DeliveryView,
  type AttemptView,
} from './views.js';
export { webhookRoutes } from './routes.js';
export { deliveryFilter, type DeliveryQuery } from './delivery-log.js';
export { DeliveryWorker, type CycleReport } from './worker.js';
export { subscribedEndpoints } from './queue.js';
export { endpointsSelecting } from './repository.js';
export { createDeliveryQueue } from './dialect.js';
export { deliveryQueueStats, type QueueStats } from './queue-stats.js';
export { Retention, type PruneReport } from './retention.js';
export { FanOut, type FlightSubscriptions, type WatchNamed } from './fanout.js';
export { Sender } from './sender.js';
export { SecretBox, SecretKeyError } from './secrets.js';
export { prepareSecrets, reportSecretKey, keyFilePath, assertSecretsReadable } from './keyfile.js';
export { webhooksCapability } from './capability.js';
