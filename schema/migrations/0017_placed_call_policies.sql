CREATE TABLE `placed_call_policies` (
	`customer_id` text PRIMARY KEY NOT NULL,
	`allow_prefixes` text DEFAULT '[]' NOT NULL,
	`calls_per_day` integer,
	`minutes_per_day` integer,
	`updated_by` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
-- Verified numbers are compared in E.164 from now on (issue 26): those stored as digits, or after
-- an international prefix, take their + form.
UPDATE `verified_numbers` SET `number` = '+' || substr(`number`, 3) WHERE `number` LIKE '00%';--> statement-breakpoint
UPDATE `verified_numbers` SET `number` = '+' || substr(`number`, 4) WHERE `number` LIKE '011%';--> statement-breakpoint
UPDATE `verified_numbers` SET `number` = '+' || `number` WHERE `number` NOT LIKE '+%';
