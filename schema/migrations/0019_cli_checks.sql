CREATE TABLE `cli_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`destination_id` text NOT NULL,
	`country` text NOT NULL,
	`caller_id` text NOT NULL,
	`number` text NOT NULL,
	`hosted_number_id` text,
	`test_call_id` text NOT NULL,
	`schedule_id` text,
	`status` text NOT NULL,
	`result` text,
	`change` text,
	`received_from` text,
	`received_display` text,
	`received_asserted` text,
	`received_privacy` text,
	`identity_present` integer,
	`arrived_at` text,
	`post_dial_ms` integer,
	`answer_ms` integer,
	`mos_sent` real,
	`mos_received` real,
	`sip_code` integer,
	`sip_reason` text,
	`error` text,
	`fee_micros` integer DEFAULT 0 NOT NULL,
	`created_by` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cli_checks_customer_created_idx` ON `cli_checks` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `cli_checks_status_number_idx` ON `cli_checks` (`status`,`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `cli_checks_test_call_idx` ON `cli_checks` (`test_call_id`);--> statement-breakpoint
CREATE TABLE `cli_schedules` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`kind` text NOT NULL,
	`destination_id` text NOT NULL,
	`country` text,
	`caller_id` text,
	`number` text,
	`every` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`next_run_at` text NOT NULL,
	`last_run_id` text,
	`last_run_at` text,
	`last_outcome` text,
	`previous_outcome` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cli_schedules_due_idx` ON `cli_schedules` (`enabled`,`next_run_at`);--> statement-breakpoint
CREATE INDEX `cli_schedules_customer_idx` ON `cli_schedules` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `hosted_numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`number` text NOT NULL,
	`country` text NOT NULL,
	`reach_by` text,
	`status` text NOT NULL,
	`listening_until` text,
	`confirmed_at` text,
	`last_answered_at` text,
	`checks_answered` integer DEFAULT 0 NOT NULL,
	`misses` integer DEFAULT 0 NOT NULL,
	`earnings_micros` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hosted_numbers_number_idx` ON `hosted_numbers` (`number`);--> statement-breakpoint
CREATE INDEX `hosted_numbers_customer_idx` ON `hosted_numbers` (`customer_id`,`created_at`);