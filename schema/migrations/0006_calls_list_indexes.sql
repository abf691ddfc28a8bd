DROP INDEX `calls_customer_external_id_idx`;--> statement-breakpoint
DROP INDEX `calls_customer_sip_call_id_idx`;--> statement-breakpoint
CREATE INDEX `calls_customer_external_id_started_idx` ON `calls` (`customer_id`,`external_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_sip_call_id_started_idx` ON `calls` (`customer_id`,`sip_call_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_duration_started_idx` ON `calls` (`customer_id`,`duration_sec`,`started_at`);