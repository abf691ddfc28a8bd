CREATE TABLE `exchange_market_rates` (
	`i_rate` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`i_vendor` integer NOT NULL,
	`service` text NOT NULL,
	`country` text NOT NULL,
	`prefix` text NOT NULL,
	`description` text,
	`price_micros` integer DEFAULT 0 NOT NULL,
	`fee_micros` integer DEFAULT 0 NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `exchange_market_rates_vendor_service_prefix_uq` ON `exchange_market_rates` (`i_vendor`,`service`,`prefix`);--> statement-breakpoint
CREATE INDEX `exchange_market_rates_active_service_prefix_idx` ON `exchange_market_rates` (`active`,`service`,`prefix`);--> statement-breakpoint
CREATE INDEX `exchange_market_rates_active_country_idx` ON `exchange_market_rates` (`active`,`country`);--> statement-breakpoint
ALTER TABLE `esims` ADD `eid` text;--> statement-breakpoint
ALTER TABLE `esims` ADD `pending_validity_days` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `iot_devices` ADD `token_hash` text;--> statement-breakpoint
CREATE UNIQUE INDEX `iot_devices_token_hash_uq` ON `iot_devices` (`token_hash`);--> statement-breakpoint
ALTER TABLE `iot_events` ADD `iccid` text;--> statement-breakpoint
ALTER TABLE `iot_events` ADD `event_uuid` text;--> statement-breakpoint
CREATE UNIQUE INDEX `iot_events_event_uuid_uq` ON `iot_events` (`event_uuid`);